package trw

import (
	"math/rand/v2"
	"slices"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// unionFind is a disjoint-set forest over the variables.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	u.reset()
	return u
}

func (u unionFind) reset() {
	for i := range u {
		u[i] = i
	}
}

func (u unionFind) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]] // path halving
		i = u[i]
	}
	return i
}

// acyclicAdd adds the factor on scope to the forest if its variables lie in
// distinct components (so the factor graph stays acyclic) and reports
// whether it did.
func (u unionFind) acyclicAdd(scope []int, roots []int) bool {
	roots = roots[:0]
	for _, v := range scope {
		r := u.find(v)
		if slices.Contains(roots, r) {
			return false
		}
		roots = append(roots, r)
	}
	for _, r := range roots[1:] {
		u[r] = roots[0]
	}
	return true
}

// drawForests draws trees maximal spanning hyperforests of g's factors of
// arity >= 2, each by visiting them in a random order, then more forests,
// the uncovered factors first, until every such factor lies in one. It
// returns the forests (factor indices, in increasing order) and every
// factor's appearance probability (1 for arity < 2).
func drawForests(g *infer.FactorGraph, trees int, seed int64) ([][]int, []float64) {
	r := mrf.NewRand(seed)
	var loopy []int // factors of arity >= 2
	for a, s := range g.Scopes {
		if len(s) >= 2 {
			loopy = append(loopy, a)
		}
	}
	count := make([]int, g.NumFactors())
	u := newUnionFind(g.NumVars())
	roots := make([]int, 0, 8)
	var forests [][]int
	draw := func(first, rest []int) {
		u.reset()
		var f []int
		for _, part := range [][]int{first, rest} {
			order := slices.Clone(part)
			shuffle(r, order)
			for _, a := range order {
				if u.acyclicAdd(g.Scopes[a], roots) {
					f = append(f, a)
					count[a]++
				}
			}
		}
		slices.Sort(f)
		forests = append(forests, f)
	}
	for range trees {
		draw(nil, loopy)
	}
	for {
		var uncovered []int
		for _, a := range loopy {
			if count[a] == 0 {
				uncovered = append(uncovered, a)
			}
		}
		if len(uncovered) == 0 {
			break
		}
		draw(uncovered, loopy) // adds at least the first uncovered factor
	}
	rho := make([]float64, g.NumFactors())
	for a := range rho {
		rho[a] = 1
	}
	for _, a := range loopy {
		rho[a] = float64(count[a]) / float64(len(forests))
	}
	return forests, rho
}

func shuffle(r *rand.Rand, x []int) {
	r.Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
}

// plan is the elimination order of one forest: its factors, each with the
// position of the variable it was reached from (its parent), in
// breadth-first order from roots, one root per tree.
type plan struct {
	steps []step
	roots []int
}

type step struct{ factor, parentPos int }

// newPlan orders the factors of forest (which must be acyclic) for
// elimination.
func newPlan(g *infer.FactorGraph, forest []int) plan {
	n := g.NumVars()
	inForest := make([]bool, g.NumFactors())
	for _, a := range forest {
		inForest[a] = true
	}
	var pl plan
	seen := make([]bool, n)
	queue := make([]int, 0, n)
	for root := range n {
		if seen[root] {
			continue
		}
		seen[root] = true
		pl.roots = append(pl.roots, root)
		queue = append(queue[:0], root)
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, inc := range g.VarFactors[v] {
				a := inc.Factor
				if !inForest[a] {
					continue
				}
				inForest[a] = false // visited
				pl.steps = append(pl.steps, step{a, inc.Pos})
				for _, j := range g.Scopes[a] {
					if j != v {
						seen[j] = true
						queue = append(queue, j)
					}
				}
			}
		}
	}
	return pl
}

// logZ returns ln Σ_x exp(Σ_i node_i(x_i) + Σ_{a∈forest} pot_a(x_a))
// exactly, by eliminating every tree of the forest from its leaves. node
// holds every variable's log potential at [varOff[i], varOff[i+1]) and is
// overwritten; pot(a, dst) writes factor a's log table into dst.
func (pl plan) logZ(g *infer.FactorGraph, varOff []int, node []float64,
	pot func(a int, dst []float64), table, out []float64) float64 {
	// Leaves first: a factor's child variables have absorbed all their
	// own children by the time it is eliminated.
	for k := len(pl.steps) - 1; k >= 0; k-- {
		a, p := pl.steps[k].factor, pl.steps[k].parentPos
		axes := g.Axes[a]
		tab := table[:g.Sizes[a]]
		pot(a, tab)
		for q, j := range g.Scopes[a] {
			if q != p {
				infer.AddAlong(tab, axes[q], node[varOff[j]:varOff[j+1]])
			}
		}
		o := out[:axes[p].Card]
		infer.LogSumAlong(tab, axes[p], o)
		parent := g.Scopes[a][p]
		dst := node[varOff[parent]:varOff[parent+1]]
		for x, l := range o {
			dst[x] += l
		}
	}
	lnZ := 0.0
	for _, root := range pl.roots {
		lnZ += infer.LogSumExp(node[varOff[root]:varOff[root+1]])
	}
	return lnZ
}
