// Package exact computes the exact partition function, variable marginals and
// factor marginals of a discrete Markov random field, and draws exact samples
// from it. It is the ground truth against which every approximate method of
// the project is scored.
//
// Solve reduces the model first (network.go): every variable keeps only the
// states its factors' zeros allow (evidence, stored as unary 0/-Inf factors,
// leaves an observed variable one state, and it is conditioned out of every
// table), and factors whose scope lies inside another's are multiplied into
// it. It then plans (planner.go): binary contraction trees are built from
// greedy elimination orders (min-fill, min-degree, bandwidth) and refined by
// simulated annealing over tree rotations with a cost model of time and
// space (anneal.go), and when a table of the best tree would exceed
// Options.MaxTable, or a run's memory Options.MaxMemory, variables are
// sliced: fixed to each of their states in turn, every slice within the
// bounds. The run contracts the tree forward to Z and backward to every
// table's adjoint (reverse-mode differentiation of Z: the contraction of
// everything else), whose product with the table is its marginal; slices
// add up weighted by their Z. The contractions run as register-blocked
// matrix products on the tables where they lie (gemm.go: a micro kernel in
// AVX2 and FMA assembly on amd64 processors that have them, in Go
// elsewhere; batches of tiny products by rows in assembly, smallgemm.go) or
// as strided sweeps (kernel.go). Estimate returns the plan and its cost
// (multiply-adds, largest table, peak memory, slices, estimated seconds)
// without running it.
//
// Tables are kept in "scaled linear" space: float64 values whose maximum is
// 1 plus one float64 log-scale per table, so products and sums are plain
// arithmetic while log Z may exceed thousands. The one limit of this
// representation: within a single table, entries smaller than about 1e-280
// times the table's largest entry are flushed to zero (float64 underflow,
// with a margin). Log-potentials of -Inf become exact zeros. A kernel that
// writes a table too large for the cache takes its largest entry from each
// block or row as its last sum lands (still in the cache), so normalising
// it reads it again only where it must be rescaled; sweeps write the first
// sum into an entry instead of zeroing it and adding.
//
// Forward tables are stored while they fit in Options.Memory; beyond that
// only checkpoints are kept and the backward pass recomputes the forward
// steps it needs from the nearest checkpoint (sweep.go), so that memory
// stays within the budget at the price of extra forward work.
//
// Sample eliminates along a greedy order (MakeOrder) over the model as
// given, stores the forward messages of that elimination tree (with the same
// checkpointing) and samples the variables in reverse elimination order. Its
// tables are scaled linear too; where a product of a step's tables might
// leave float64's normal range, found before any draw, it samples with
// tables of logs instead.
package exact
