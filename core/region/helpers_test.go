package region

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// gridModel returns a seeded Ising model on an L x L grid or torus.
func gridModel(t testing.TB, L int, torus bool, seed int64) *mrf.Model {
	t.Helper()
	es, err := mrf.GridEdges(L, torus)
	if err != nil {
		t.Fatal(err)
	}
	return mrf.RandomIsing(L*L, es, 1, seed)
}

func completeModel(n int, seed int64) *mrf.Model {
	return mrf.RandomIsing(n, mrf.CompleteEdges(n), 1, seed)
}

// randomTable returns a log table of N(0, 1) entries for scope under cards.
func randomTable(rng *rand.Rand, cards, scope []int) []float64 {
	t := make([]float64, mrf.TableSize(cards, scope))
	for i := range t {
		t[i] = rng.NormFloat64()
	}
	return t
}

// factorModel returns a model with the given cards, a unary factor on every
// variable for which unary is true, a pairwise factor per edge and one
// factor per extra scope (scopes used in the order given).
func factorModel(rng *rand.Rand, cards []int, unary []bool, edges []mrf.Edge, extra [][]int) *mrf.Model {
	m := &mrf.Model{Cards: cards}
	for v := range cards {
		if unary == nil || unary[v] {
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{v}, LogTable: randomTable(rng, cards, []int{v})})
		}
	}
	for _, e := range edges {
		s := []int{e.I, e.J}
		if rng.IntN(2) == 0 {
			s = []int{e.J, e.I} // scopes need not be sorted
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: s, LogTable: randomTable(rng, cards, s)})
	}
	for _, s := range extra {
		m.Factors = append(m.Factors, mrf.Factor{Vars: slices.Clone(s), LogTable: randomTable(rng, cards, s)})
	}
	return m
}

func constCards(n, c int) []int {
	cards := make([]int, n)
	for i := range cards {
		cards[i] = c
	}
	return cards
}

// erdosRenyi returns the edges of a G(n, p) graph.
func erdosRenyi(rng *rand.Rand, n int, p float64) []mrf.Edge {
	var es []mrf.Edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < p {
				es = append(es, mrf.Edge{I: i, J: j})
			}
		}
	}
	return es
}

// randomTree returns the edges of a random recursive tree on n nodes.
func randomTree(rng *rand.Rand, n int) []mrf.Edge {
	var es []mrf.Edge
	for i := 1; i < n; i++ {
		es = append(es, mrf.Edge{I: rng.IntN(i), J: i})
	}
	return es
}

// randomScopes returns k scopes of arity 3 or 4 over n variables, in random
// variable order.
func randomScopes(rng *rand.Rand, n, k int) [][]int {
	var out [][]int
	for range k {
		a := 3 + rng.IntN(2)
		if a > n {
			a = n
		}
		out = append(out, rng.Perm(n)[:a])
	}
	return out
}

// bruteJoint returns p(x) for every joint state (row-major over variables
// 0..n-1, the last fastest) and ln Z, by enumeration.
func bruteJoint(t testing.TB, m *mrf.Model) ([]float64, float64) {
	t.Helper()
	size := mrf.TableSize(m.Cards, seq(len(m.Cards)))
	if size > 1<<16 {
		t.Fatalf("brute force over %d states is too large for a test", size)
	}
	logp := make([]float64, size)
	x := make([]int, len(m.Cards))
	maxLog := math.Inf(-1)
	for s := range logp {
		logp[s] = m.LogScore(x)
		maxLog = max(maxLog, logp[s])
		for i := len(x) - 1; i >= 0; i-- {
			x[i]++
			if x[i] < m.Cards[i] {
				break
			}
			x[i] = 0
		}
	}
	sum := 0.0
	for _, l := range logp {
		sum += math.Exp(l - maxLog)
	}
	logZ := maxLog + math.Log(sum)
	for s, l := range logp {
		logp[s] = math.Exp(l - logZ)
	}
	return logp, logZ
}

// marginalOf returns the marginal of a joint table onto vars (in that order).
func marginalOf(m *mrf.Model, joint []float64, vars []int) []float64 {
	out := make([]float64, mrf.TableSize(m.Cards, vars))
	Marginalize(joint, subIndex(m.Cards, seq(len(m.Cards)), vars), out)
	return out
}

func build(t testing.TB, m *mrf.Model, graph, scheme string) *Graph {
	t.Helper()
	g, err := Build(m, graph, scheme)
	if err != nil {
		t.Fatalf("Build(%s, %s): %v", graph, scheme, err)
	}
	return g
}

func bind(t testing.TB, g *Graph, m *mrf.Model) *Binding {
	t.Helper()
	bd, err := g.Bind(m)
	if err != nil {
		t.Fatalf("Bind: %v", err)
	}
	return bd
}

func energies(t testing.TB, bd *Binding, m *mrf.Model) [][]float64 {
	t.Helper()
	E, err := bd.Energies(m)
	if err != nil {
		t.Fatalf("Energies: %v", err)
	}
	return E
}

// randomBeliefs returns positive random tables shaped like bd's regions.
func randomBeliefs(rng *rand.Rand, bd *Binding) [][]float64 {
	b := bd.NewBeliefs()
	for _, t := range b {
		for i := range t {
			t[i] = 0.05 + rng.Float64()
		}
	}
	return b
}
