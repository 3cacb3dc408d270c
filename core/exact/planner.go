package exact

import (
	"math"
	"slices"
	"sync"

	"github.com/renn-go/renn/core/mrf"
)

// shape is what the planner needs of a network: the variables that more
// than one tensor holds (numbered compactly), their cardinalities, and each
// tensor's compact variables.
type shape struct {
	vars     []int     // compact variable -> model variable
	w        []float64 // log2 cardinality of each compact variable
	cards    []int
	leafVars [][]int // compact variables of every leaf
}

func newShape(nw *network) *shape {
	sh := &shape{leafVars: make([][]int, len(nw.leaves))}
	index := make([]int, len(nw.card))
	for v := range index {
		index[v] = -1
		if nw.count[v] > 1 {
			index[v] = len(sh.vars)
			sh.vars = append(sh.vars, v)
			sh.cards = append(sh.cards, nw.card[v])
			sh.w = append(sh.w, math.Log2(float64(nw.card[v])))
		}
	}
	for i, lf := range nw.leaves {
		for _, v := range lf.vars {
			if index[v] >= 0 {
				sh.leafVars[i] = append(sh.leafVars[i], index[v])
			}
		}
	}
	return sh
}

// initialTrees returns contraction trees of greedy elimination orders (a
// bandwidth order and its reverse, and up to opt.Tries randomised min-fill
// and min-degree orders each): the trees of the keep cheapest orders by
// total clique size, of which the keepTrees cheapest by the annealing's
// cost are returned with the names of their heuristics.
func (sh *shape) initialTrees(opt Options, keep, keepTrees int) ([]*ctree, []string) {
	g := newGraph(sh.cards, sh.leafVars)
	noLimit := math.Inf(1)
	var cands []*candidate // the cheapest orders by total clique size, at most keep
	consider := func(c *candidate) {
		if c == nil {
			return
		}
		i := 0
		for i < len(cands) && !better(c, cands[i], noLimit) {
			if c.cost == cands[i].cost && c.largest == cands[i].largest {
				return // most likely the same order
			}
			i++
		}
		if i < keep {
			cands = slices.Insert(cands, i, c)
			cands = cands[:min(len(cands), keep)]
		}
	}
	cm := g.cuthillMcKee()
	consider(g.evaluate(cm, "bandwidth", nil, noLimit))
	rev := slices.Clone(cm)
	slices.Reverse(rev)
	consider(g.evaluate(rev, "bandwidth-reversed", nil, noLimit))
	rng := mrf.NewRand(opt.Seed)
	spent := 0.0
	for range opt.Tries {
		for _, kind := range []int{minDegree, minFill} {
			var bound *candidate // an order must beat the last one kept
			if len(cands) == keep {
				bound = cands[keep-1]
			}
			consider(g.greedy(kind, rng, bound, noLimit))
			spent += greedyCost * float64(len(sh.vars))
		}
		// The orders get half of the planning budget (in rotations of the
		// annealing, bounded as the annealing is): a model fast to solve
		// gets few rounds, one far over the time bound all it can within
		// the bound (on genetic-linkage models the annealing takes greedy
		// trees thousands of times over it to within it, the further the
		// better the start). A tree's multiply-adds are about its order's
		// total clique size.
		s := 3 * cands[0].cost * objFlop
		if spent > planBudget(s, opt)/2 {
			break
		}
	}
	return sh.rankTrees(cands, opt, keepTrees)
}

// rankTrees returns the trees of the orders cands, the keepTrees cheapest
// by the annealing's cost (which also counts the entries written: memory),
// with the names of their heuristics.
func (sh *shape) rankTrees(cands []*candidate, opt Options, keepTrees int) ([]*ctree, []string) {
	trees := make([]*ctree, len(cands))
	names := make([]string, len(cands))
	costs := make([]float64, len(cands))
	a := &annealer{gamma: writeWeight, limit: math.Log2(float64(opt.MaxTable)) + 1e-9}
	for i, c := range cands {
		trees[i] = treeFromOrder(len(sh.vars), sh.w, sh.leafVars, c.order)
		names[i] = c.heuristic
		a.t = trees[i]
		costs[i] = a.cost()
	}
	idx := seq(len(cands))
	slices.SortStableFunc(idx, func(i, j int) int { return cmpFloat(costs[i], costs[j]) })
	var ts []*ctree
	var ns []string
	for _, i := range idx[:min(keepTrees, len(idx))] {
		ts, ns = append(ts, trees[i]), append(ns, names[i])
	}
	return ts, ns
}

// greedyCost is about the time of one greedy order per variable, in
// annealing rotations.
const greedyCost = 64

// hopeless is how far over the time bound a plan may be for the planner to
// go on slicing it; an initial tree that far over gets the planning budget
// hopelessProposals.
const hopeless = 16

// planBudget returns the rotations of the annealing (and, half as many,
// their time's worth of greedy orders) that planning a model whose best
// tree so far takes seconds to solve along may spend: in proportion to
// seconds, at most maxProposals, and hopelessProposals (a tenth of a
// second or so) for a tree far over opt.MaxPlannedSeconds, which is most
// likely refused, but on genetic-linkage models annealing takes greedy
// trees thousands of times over the bound to within it.
func planBudget(seconds float64, opt Options) float64 {
	if seconds > hopeless*opt.MaxPlannedSeconds {
		return hopelessProposals
	}
	return min(seconds*annealProposals, maxProposals)
}

// quickSeconds is the planner's objective (see objFlop) of solving along t
// unsliced, without recomputation: a forward and two backward contractions
// per node.
func (t *ctree) quickSeconds() float64 {
	flops, written, _ := t.costs()
	return 3*flops*objFlop + 3*written*objEntry
}

// keepOrders is the number of greedy orders (the cheapest by total clique
// size) made into trees, keepTrees the number of those trees annealed.
const (
	keepOrders    = 6
	keepTrees     = 2
	chainsPerTree = 2
)

// annealProposals is the number of rotations tried per estimated second of
// solving along the best greedy tree: at about 100 ns a rotation, planning
// takes up to a tenth of that time, and annealing usually cuts the solve's
// time by more (2x to 8x on the UAI stand-ins but the Potts ones).
const annealProposals = 1.5e6

// maxSweeps bounds the annealing passes over a tree (past a few hundred,
// further passes rarely find cheaper trees), maxProposals the rotations
// tried in all (about half a second).
const (
	maxSweeps         = 1000
	maxProposals      = 5e6
	hopelessProposals = 1e6
)

// refine anneals each tree chainsPerTree times with a number of passes that
// grows with the estimated time of solving along the best of them, and
// returns the cheapest result and its heuristic's name. Annealing runs
// differ a lot (on the Promedas stand-in the plans of six seeds take 0.05
// to 0.11 s): several shorter chains are a safer bet than one long one.
func (sh *shape) refine(trees []*ctree, names []string, opt Options, limit float64, seconds float64) (*ctree, string) {
	internal := max(1, len(sh.leafVars)-1)
	// The chains anneal concurrently, each with its own generator, so the
	// result does not depend on the number of cores.
	chains := chainsPerTree * len(trees)
	sweeps := min(maxSweeps, int(planBudget(seconds, opt)/float64(internal*chains)))
	as := make([]*annealer, chains)
	var wg sync.WaitGroup
	for i := range as {
		t := trees[i/chainsPerTree]
		as[i] = &annealer{t: t.clone(), gamma: writeWeight, limit: limit, rng: mrf.NewRand(mrf.DeriveSeed(opt.Seed, i))}
		wg.Add(1)
		go func(a *annealer) {
			defer wg.Done()
			if sweeps > 0 {
				a.run(sweeps)
			} else {
				a.total = a.cost()
			}
		}(as[i])
	}
	wg.Wait()
	best, name, bestCost := trees[0], names[0], math.Inf(1)
	for i, a := range as {
		if a.total < bestCost {
			best, name, bestCost = a.t, names[i/chainsPerTree], a.total
		}
	}
	if sweeps > 0 {
		name += ", annealed"
	}
	return best, name
}

// anneal refines t (its weights kept) with a budget in proportion to
// seconds, the seed derived from round.
func (sh *shape) anneal(t *ctree, opt Options, limit, seconds float64, round int) *ctree {
	internal := max(1, sh.nleaves()-1)
	sweeps := min(maxSweeps, int(planBudget(seconds, opt)/float64(internal)))
	if sweeps == 0 {
		return t
	}
	a := &annealer{t: t, gamma: writeWeight, limit: limit, rng: mrf.NewRand(mrf.DeriveSeed(opt.Seed, chainsPerTree*keepTrees+round))}
	a.run(sweeps)
	return a.t
}

func (sh *shape) nleaves() int { return len(sh.leafVars) }

// makePlan plans the contraction of nw within opt's bounds: the cheapest
// of the annealed initial trees, sliced (variables fixed in turn) until
// every table of a slice fits opt.MaxTable and a slice's estimated peak
// memory fits opt.MaxMemory. A plan over opt.MaxPlannedSeconds is returned with a
// *TooSlowError.
func makePlan(nw *network, opt Options) (*cplan, *Plan, error) {
	sh := newShape(nw)
	limit := math.Log2(float64(opt.MaxTable)) + 1e-9
	var tree *ctree
	name := "none (one table)"
	switch len(nw.leaves) {
	case 0:
		tree = &ctree{root: -1}
		name = "none (no tables)"
	case 1:
		tree = newCtree(len(sh.vars), 1, sh.w)
	default:
		trees, names := sh.initialTrees(opt, keepOrders, keepTrees)
		tree, name = sh.refine(trees, names, opt, limit, trees[0].quickSeconds())
	}
	var sliced []int
	for {
		p := newCplan(nw, sh, tree, sliced)
		c := p.cost(opt, false)
		fits := c.LargestTable <= opt.MaxTable && c.PeakMemory <= opt.MaxMemory
		if fits && c.Seconds <= opt.MaxPlannedSeconds {
			c = p.cost(opt, true) // the kernels' scratch tables too
			fits = c.PeakMemory <= opt.MaxMemory
		}
		plan := p.describe(c, name)
		switch {
		case fits && c.Seconds > opt.MaxPlannedSeconds:
			return p, plan, &TooSlowError{Plan: plan, MaxPlannedSeconds: opt.MaxPlannedSeconds}
		case fits:
			return p, plan, nil
		case c.Seconds > hopeless*opt.MaxPlannedSeconds:
			// Slicing adds work: a plan this far over the bound is refused.
			return p, plan, &TooSlowError{Plan: plan, MaxPlannedSeconds: opt.MaxPlannedSeconds}
		}
		threshold := limit
		if c.LargestTable <= opt.MaxTable {
			threshold = math.Log2(float64(c.LargestTable)) - 0.5
		}
		v := tree.pickSlice(threshold, min(limit, threshold+0.5), sh.cards)
		if v < 0 {
			return p, plan, &MemoryTooLargeError{Estimate: c.PeakMemory, MaxMemory: opt.MaxMemory,
				LargestTable: c.LargestTable, Detail: "even with every variable sliced"}
		}
		if len(sliced) == 0 {
			tree = tree.clone()
			name += ", sliced"
		}
		sliced = append(sliced, v)
		w := slices.Clone(tree.w)
		w[v] = 0
		tree.setWeights(w)
		// The tree may adapt to the variables sliced, which cost nothing
		// now; the annealed tree is kept if its plan is faster.
		bound := min(limit, threshold+0.5)
		re := sh.anneal(tree.clone(), opt, bound, c.objective, len(sliced))
		if re != tree && newCplan(nw, sh, re, sliced).cost(opt, false).objective < newCplan(nw, sh, tree, sliced).cost(opt, false).objective {
			tree = re
		}
	}
}

// pickSlice returns the variable to slice next, or -1 if no table above
// 2^threshold holds a variable of positive weight: of the sliceCandidates
// variables held by the most entries of tables above it (leaves included),
// the one whose slicing leaves the least work (the annealing's cost of the
// tree with the variable free, times its states).
func (t *ctree) pickSlice(threshold, limit float64, cards []int) int {
	score := make([]float64, len(t.w))
	for n := range int32(len(t.left)) {
		if !t.leaf(n) && t.left[n] < 0 {
			continue // not built
		}
		sc := t.sc(n)
		if sc <= threshold {
			continue
		}
		for i, word := range t.set(n) {
			for ; word != 0; word &= word - 1 {
				score[i*64+trailingZeros(word)] += math.Exp2(sc)
			}
		}
	}
	var cands []int
	for v, x := range score {
		if x > 0 && t.w[v] > 0 {
			cands = append(cands, v)
		}
	}
	slices.SortStableFunc(cands, func(a, b int) int { return cmpFloat(score[b], score[a]) })
	best, bestWork := -1, math.Inf(1)
	orig := t.w
	for _, v := range cands[:min(len(cands), sliceCandidates)] {
		w := slices.Clone(orig)
		w[v] = 0
		t.setWeights(w)
		a := &annealer{t: t, gamma: writeWeight, limit: limit}
		if work := a.cost() * float64(cards[v]); work < bestWork {
			best, bestWork = v, work
		}
	}
	t.setWeights(orig)
	return best
}

// sliceCandidates is the number of variables pickSlice weighs.
const sliceCandidates = 8

// cost estimates the cost of solving along p; exact also counts the
// kernels' scratch tables in the peak memory.
func (p *cplan) cost(opt Options, exact bool) Cost {
	peak, flops, written := sizeSlice(p, opt.Memory, exact)
	c := Cost{Slices: p.numSlices(), PeakMemory: peak}
	ns := float64(c.Slices)
	c.Flops, c.Written = flops*ns, written*ns
	c.LargestTable = p.largest()
	n := ns * float64(2*len(p.steps)+len(p.nw.leaves))
	c.Seconds = c.Flops*SecondsPerFlop + c.Written*SecondsPerEntry + n*SecondsPerContraction
	c.objective = c.Flops*objFlop + c.Written*objEntry + n*objContraction
	return c
}

// largest returns the entries of the largest table a slice makes: a
// contraction's, or a model table's summed over the variables no other
// table holds (the model's own tables are not counted: they exist already).
func (p *cplan) largest() int64 {
	var l int64 = 1
	for _, vs := range p.leafVars {
		l = max(l, int64(tableSize(p.nw.card, vs)))
	}
	for _, s := range p.steps {
		l = max(l, s.size)
	}
	return l
}

// describe returns the public Plan of p with cost c.
func (p *cplan) describe(c Cost, heuristic string) *Plan {
	plan := &Plan{Cost: c, Heuristic: heuristic, Sliced: slices.Clone(p.sliced), Contractions: len(p.steps)}
	var best int64
	for _, vs := range p.leafVars {
		if n := int64(tableSize(p.nw.card, vs)); n > best {
			best, plan.LargestVars = n, slices.Clone(vs)
		}
	}
	for _, s := range p.steps {
		if s.size > best {
			best, plan.LargestVars = s.size, slices.Clone(s.vars)
		}
	}
	return plan
}
