// Package auto is the method "auto": the best answer the toolchain can give
// for any model within a time budget (max_seconds, wall time per call), and
// what backs it.
//
// # What runs
//
// Within the budget, minus a reserve for the choice (2%, at most 0.5 s):
//
//  1. Exact inference, when its plan's estimated run time fits the time
//     left (exact.Prepare: Cost.Seconds, for one idle core, within 25% of
//     one-core solves of 0.3-30 s of the UAI-like families; scaled by
//     1.25 on one core and by 0.6 on two, the most two-core solves of
//     unsliced plans took; planning is spent on it in proportion to the
//     budget). An unsliced solve cannot be stopped once started, so a
//     machine slower than the estimate's (or busy) overruns the budget by
//     the difference; a sliced solve, whose time is less predictable,
//     gives up as soon as its slices (the second on) show it cannot end
//     in the time left, and the rest runs in what remains. The plan estimated is the plan
//     run: exact inference plans once. Its answer, if it passes the
//     shared check, is the answer, and nothing else runs.
//  2. Otherwise, parallel tempering until the deadline (no cap on its
//     sweeps), and beside it, on the second core, the variational methods
//     in at most 30% of the time left, each stopped by its share of what
//     is left of that: mean field (2%, and at least 0.02 s: it always
//     runs, so any budget gets an answer) and TRW (5%), the lower and
//     upper bounds on ln Z; loopy BP (5%); GBP on each region graph from
//     the largest down until one converges (60% of what is left, the last
//     graph 70%): on a lattice the 3x3 blocks, then the plaquettes, on any
//     model the graph of build-regions' auto scheme (bounded cycles, the
//     plaquettes of a lattice, the star of a complete graph); and
//     double-loop GBP on the largest graph in the rest, when GBP did not
//     converge there. Then, on that core, a second sampler until the
//     deadline: on a model with hard constraints (a zero entry in a
//     factor over two or more variables: pedigrees, linkage models, CSPs,
//     noisy-OR networks) Gibbs sampling, on other models parallel
//     tempering again, with chains seeded apart from the first's (no cap
//     on sweeps either way). Each sampler keeps its chains on its own core
//     (on the UAI-like models their sweeps are too short to gain from a
//     core per chain: one run of parallel tempering swept as many times
//     with its two chains on one core as on two), so two runs of parallel
//     tempering sweep twice as often as one. With one core (GOMAXPROCS 1,
//     or parallel=false) the variational methods run first, then parallel
//     tempering, and no second sampler. Where the variational methods
//     fail, the samplers' error falls as one over the square root of their
//     sweeps, so the variational share is kept small: on two cores the
//     samplers keep about 85% of the machine's time.
//
// The measurements behind this order (one model each, seed 1, run alone
// for 20 s on the project's 2-core machine; REPORT.md, "Any model, within
// a budget", has the systematic comparison): most models of the UAI
// competitions' kinds solve exactly in seconds; on a 15x15 spin-glass grid
// with couplings U(-5,5) GBP on the 3x3 blocks converged in 1.1 s at mean
// Hellinger 0.0013 where the plaquettes did not converge (0.016) and
// parallel tempering reached 0.014; on a 10x10 torus with couplings
// U(-10,10) every variational method stopped at 0.24-0.43 and parallel
// tempering reached 0.009; on a soft CSP of 60 variables GBP converged at
// 0.025 and parallel tempering reached 0.0033; on noisy-OR networks and
// pedigrees GBP converged within 0.004 of exact in under 0.1 s.
//
// Gibbs sampling, alone for 20 s on the 32 models of that section (seed 1):
// on the pedigrees it beat parallel tempering by 2.8-4.8x in mean
// Hellinger (pedigree100-1: 6.3e-4 against 2.8e-3), on the CSPs, linkage
// models, noisy-OR networks and Potts models of 40 variables parallel
// tempering's error was 0.53-3.8 times its, and on spin-glass grids and
// tori, RBMs and Potts models of 80 variables its chains sat in modes
// (0.18-0.72 against parallel tempering's 2e-4 to 0.09). On one RBM its four chains passed
// split R-hat 1.01 in one mode (0.72), which is why Gibbs sampling stands
// in for parallel tempering only when parallel tempering corroborates it.
// Run beside parallel tempering on every model (auto with exact=false on
// the 32 models at 20 s, seed 1, the 2-core machine shared at load 6-11),
// Gibbs sampling cost parallel tempering 4-9x of its sweeps on the tori
// (8444 against 77782 on torus13-0), hence hard constraints only, where
// the ladder cannot lift them. Gibbs there, against the same auto without
// it run the same hour, auto's mean Hellinger over the two models of each
// family and size: pedigrees of 100 variables 5.1e-3 to 1.0e-3 (Gibbs
// alone 6.7e-4), of 400 4.8e-3 to 7.7e-4, linkage models of 12 2.5e-3 to
// 1.4e-3, of 18 5.4e-3 to 5.2e-3, CSPs of 60 3.9e-3 to 2.9e-3, of 200
// 1.0e-2 to 1.1e-2; the tori kept parallel tempering's sweeps (85003 on
// torus13-0). Wall time at most 19.9 s per model.
//
// # The choice
//
// A run's answer is usable when its marginals have the model's shape and
// are finite and normalised; it converged when it met its convergence test
// and passed the shared check (infer.Verify; for parallel tempering
// infer.VerifyMarginals, its ln Z being weighed apart). A sampler is
// credible when it converged (its chains mixed by its own test), parallel
// tempering also when its split R-hat is at most 1.1 on every variable
// (Gibbs sampling has no ladder tests behind a looser R-hat). When both
// samplers are credible, have finite standard errors and agree (Σ (A - B)²
// at most 3 times Σ (seA² + seB²) over the unobserved variables' states),
// their answers are pooled: each run weighted by the inverse of its Σ se²
// (one weight per run, so the pooled marginals stay normalised and
// consistent), standard errors combined accordingly, ln Z the
// inverse-variance average of the finite ones (by "log_z_se"). The pool
// converged when both runs did. Two independent runs differ by their noise
// alone, so their excess over each other (the spread) above 1 shows their
// standard errors too small: the pool's are scaled up by its square root,
// and both runs' too when both are parallel tempering (pooled or not: a
// Gibbs run may differ by sitting in a mode). Standard errors are never
// scaled down. P, the sampler weighed below, is the pool
// when there is one; else the credible sampler with the smaller Σ se² over
// the unobserved variables' states (a standard error missing or not finite
// counts as infinite), Gibbs sampling only where it agrees with credible
// parallel tempering, else the first usable one (parallel tempering, then
// Gibbs sampling). In order:
//
//  1. Exact inference, if it ran and passed the check.
//  2. V: the converged region run (GBP or double-loop GBP on a region
//     graph, loopy BP on the Bethe graph) of the largest region graph.
//  3. If V and a credible sampler's answer P both exist, they are
//     compared over the states of the unobserved variables
//     (metrics.Observed): the excess Σ (V - P)² / Σ se², se P's standard
//     errors, is about 1 when V is exact and the standard errors honest,
//     and Σ (V - P)² - Σ se² estimates V's squared error where Σ se²
//     estimates P's. Above 3, V's bias shows beyond P's noise: P. At most
//     1: V (P cannot tell them apart, and V is deterministic and
//     converged). In between the standard errors cannot tell (measured up
//     to several times too large on tori and pedigrees, about right on
//     noisy-OR networks), and V is kept only when a converged region run
//     on another graph agrees with it within mean Hellinger 1e-4 (loop
//     corrections vanish, as on noisy-OR networks with evidence, where GBP
//     and loopy BP are exact to 1e-8); otherwise P. For a pool of two
//     runs of parallel tempering that both mixed by their own tests, Σ se²
//     is first scaled by the spread of its runs when it is below 1 (at
//     least 0.1; not beside Gibbs sampling, whose errors the spread does
//     not measure apart from parallel tempering's): independent
//     runs differ by their noise alone, so the spread shows how far their
//     standard errors overstate it. Runs
//     that did not mix may sit in the same modes and agree closely far
//     from the truth, and are not scaled. The standard errors the answer
//     reports are never scaled down.
//  4. V alone, if P is not credible.
//  5. P alone, if credible and no region run converged.
//  6. Otherwise, by order: a region run that passed the shared check
//     without converging (consistent, stopped by its time limit) of the
//     largest graph, P, the other usable region runs by
//     graph, mean field, TRW.
//
// No usable answer at all is an error naming every run's failure.
//
// ln Z is the chosen answer's (-F for a variational one; the stepping-stone
// estimate for parallel tempering; none for Gibbs sampling), replaced when
// it is not finite: for Gibbs sampling by parallel tempering's if that
// converged (with its "log_z_se"), else by the best converged region
// run's; and moved into [mean field's ln Z, TRW's
// ln Z] when both bounds are there and it lies outside them (the record says
// so).
//
// # Certificates
//
// infer.Result.Certificate says what backs the answer: exact (exact
// inference), converged (a region run that converged and passed the check;
// its free energy is the result's FreeEnergy), monte-carlo (a sampler
// that mixed by its own test; standard errors of every marginal,
// StandardErrors, and of ln Z, diagnostics "log_z_se", when ln Z is a
// sampler's), bounds (none of
// these, but mean field's lower and TRW's upper bound on ln Z are there:
// diagnostics "log_z_lower", "log_z_upper", "bounds_width"), or none.
//
// # Record
//
// infer.Result.Record is a *Record: the budget, the exact-inference
// decision (its estimate and why it ran or not), every run with its time
// limit, seconds, convergence, check and ln Z, the bounds, the excess, and
// the chosen run with the reason.
//
// # Time
//
// Every run is stopped by its time limit (max_seconds of its method) at the
// end of a sweep, and a step with less than 0.02 s left is skipped, so a
// call ends within its budget plus a sweep of each run, plus exact
// inference's overrun of its estimate when it ran.
// Clocks are read through ctx (infer.Now), so tests can run budgets out on a
// fake clock. Runs that end by convergence or an iteration cap are
// reproducible for a seed; those ended by the clock (parallel tempering
// always) depend on the machine's speed.
package auto
