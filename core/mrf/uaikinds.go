package mrf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// This file holds stand-ins for the kinds of model of the UAI 2014
// inference competition (PR and MAR tracks), for benchmarking exact
// inference against the published times of other solvers on those models.
// The competition's files are not shipped; each stand-in has the shape the
// competition's models of its kind have (variables, states, factor arity,
// evidence) and a width knob, calibrated so that this project's variable
// elimination before its contraction planner (randomised greedy orders and
// a fused clique kernel) took about as long on the stand-in as it took on
// the competition's model, which makes the stand-in about as hard. UAIKinds
// lists them with their calibrated shapes.

// UAIKind is one kind of model and the knob values of its stand-in.
type UAIKind struct {
	Name  string // short name: potts, potts-dense, grid20, csp, mln, promedas, pedigree, segmentation
	Shape string // what the competition's models of the kind look like
	Seed  int64  // the seed of the stand-in the comparison table measures
	Build func(seed int64) (*Model, error)
}

// UAIKinds returns the stand-ins, in the order of the comparison table.
func UAIKinds() []UAIKind {
	return []UAIKind{
		{"potts", "object detection: 60 variables, 11 states, ~165 pairwise + 60 unary factors", 1,
			func(seed int64) (*Model, error) { return DefaultPotts(60).Generate(seed) }},
		{"potts-dense", "object detection, denser: 60 variables, 11 states, 230 pairwise + 60 unary factors", 1,
			func(seed int64) (*Model, error) { return Potts{N: 60, K: 11, Treewidth: 6, Edges: 230}.Generate(seed) }},
		{"grid20", "spin glass 20x20: 400 binary, pairwise, J ~ U(-5,5), h ~ U(-1,1)", 1, spinGlass20},
		{"csp", "soft CSP: 67 variables, 4 states, 120 ternary factors with zeros", 4,
			func(seed int64) (*Model, error) { return KindCSP(67, 120, 8, seed), nil }},
		{"mln", "Markov logic network: 440 binary, 660 ternary clause factors", 2,
			func(seed int64) (*Model, error) { return KindMLN(440, 660, 14, seed), nil }},
		{"promedas", "Promedas: 461 binary, noisy-OR factors of arity 3, findings observed", 4,
			func(seed int64) (*Model, error) { return KindPromedas(190, 271, 60, seed), nil }},
		{"pedigree", "pedigree: 384 variables, 3 states, arity-4 factors, evidence", 1,
			func(seed int64) (*Model, error) { return KindPedigree(192, 10, seed), nil }},
		{"segmentation", "image segmentation: 228 binary superpixels, pairwise", 2,
			func(seed int64) (*Model, error) { return KindSegmentation(12, 19, 7, seed), nil }},
	}
}

func spinGlass20(seed int64) (*Model, error) {
	es, err := GridEdges(20, false)
	if err != nil {
		return nil, err
	}
	return RandomIsingWith(400, es, Uniform(1), Uniform(5), seed), nil
}

// window returns k distinct variables other than i drawn from the w
// positions after i in perm (wrapping around), with i first.
func window(r *rand.Rand, perm []int, at, w, k int) []int {
	n := len(perm)
	out := []int{perm[at]}
	for len(out) < k+1 {
		v := perm[(at+1+r.IntN(w))%n]
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// KindCSP is a soft CSP: n variables of 4 states, f ternary factors, each
// over a variable and two more within w positions after it in a random
// order of the variables. A planted assignment keeps Z > 0; every other
// entry is 0 with probability 0.1, e^U(−12,−6) with probability 0.1 and
// e^U(−1,1) otherwise (as the csp family).
func KindCSP(n, f, w int, seed int64) *Model {
	r := NewRand(seed)
	const K = 4
	m := &Model{Cards: make([]int, n)}
	planted := make([]int, n)
	for i := range m.Cards {
		m.Cards[i] = K
		planted[i] = r.IntN(K)
	}
	perm := r.Perm(n)
	for range f {
		vars := window(r, perm, r.IntN(n), w, 2)
		keep := (planted[vars[0]]*K+planted[vars[1]])*K + planted[vars[2]]
		t := make([]float64, K*K*K)
		for x := range t {
			switch u := r.Float64(); {
			case u < CSPZero && x != keep:
				t[x] = math.Inf(-1)
			case u < CSPZero+CSPTiny:
				t[x] = -6 - 6*r.Float64()
			default:
				t[x] = 2*r.Float64() - 1
			}
		}
		m.Factors = append(m.Factors, Factor{Vars: vars, LogTable: t})
	}
	return m
}

// KindMLN is a Markov logic network's ground model: n binary atoms, a unary
// factor per atom (log-weight U(−1,1) on true) and f ternary clauses, each
// over an atom and two more within w positions after it in a random order:
// a clause with random literal signs and weight U(0,3) scores w when
// satisfied and 0 otherwise (one zero-weight... no hard clauses).
func KindMLN(n, f, w int, seed int64) *Model {
	r := NewRand(seed)
	m := &Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = 2
		m.Factors = append(m.Factors, Factor{Vars: []int{i}, LogTable: []float64{0, 2*r.Float64() - 1}})
	}
	perm := r.Perm(n)
	for range f {
		vars := window(r, perm, r.IntN(n), w, 2)
		signs := r.IntN(8)
		wt := 3 * r.Float64()
		t := make([]float64, 8)
		for x := range t {
			// The clause is satisfied unless every literal is false:
			// literal j is false when bit j of x differs from its sign.
			if x != signs^7 {
				t[x] = wt
			}
		}
		m.Factors = append(m.Factors, Factor{Vars: vars, LogTable: t})
	}
	return m
}

// KindPromedas is a noisy-OR diagnosis network: c binary diseases with
// priors U(0.01, 0.2) and f binary findings, each with two diseases within
// w positions of each other in a random order of the diseases and the CPT
// P(finding off | parents) = (1 − leak) Π_{on} q, q ~ U(0.05, 0.95), leak
// U(0, 0.05) on every other finding and 0 otherwise (zeros); factors of
// arity 3 (parents, finding). A state is drawn by ancestral sampling and
// every finding is observed at it.
func KindPromedas(c, f, w int, seed int64) *Model {
	r := NewRand(seed)
	m := &Model{Cards: make([]int, c+f)}
	state := make([]int, c+f)
	for i := range m.Cards {
		m.Cards[i] = 2
	}
	for d := range c {
		p := 0.01 + 0.19*r.Float64()
		m.Factors = append(m.Factors, Factor{Vars: []int{d}, LogTable: []float64{math.Log1p(-p), math.Log(p)}})
		if r.Float64() < p {
			state[d] = 1
		}
	}
	perm := r.Perm(c)
	for j := range f {
		child := c + j
		parents := window(r, perm, r.IntN(c), w, 1)
		q := []float64{0.05 + 0.9*r.Float64(), 0.05 + 0.9*r.Float64()}
		leak := 0.0
		if j%2 == 1 {
			leak = 0.05 * r.Float64()
		}
		off := func(a, b int) float64 {
			p := 1 - leak
			if a == 1 {
				p *= q[0]
			}
			if b == 1 {
				p *= q[1]
			}
			return p
		}
		t := make([]float64, 0, 8)
		for a := range 2 {
			for b := range 2 {
				p0 := off(a, b)
				t = append(t, math.Log(p0), math.Log1p(-p0))
			}
		}
		m.Factors = append(m.Factors, Factor{Vars: []int{parents[0], parents[1], child}, LogTable: t})
		if r.Float64() >= off(state[parents[0]], state[parents[1]]) {
			state[child] = 1
		}
	}
	for j := range f {
		m.Observe(c+j, state[c+j]) // in range: cannot fail
	}
	return m
}

// KindPedigree is the pedigree family's model (FactorFamily) with n
// individuals in generations of g instead of PedigreeWidth: wider
// generations make more loops through shared parents and a larger width.
func KindPedigree(n, g int, seed int64) *Model {
	return pedigreeWidth(n, g, NewRand(seed))
}

// KindSegmentation is an image segmentation model over a rows x cols
// lattice of superpixels, each jittered by up to half a cell and joined to
// its k nearest others (ties by index): binary labels, unary data terms
// U(−2,2) on label 1, and attractive pairwise terms J ~ U(0,2) on agreeing
// labels (factors (i,j) with i < j, each once).
func KindSegmentation(rows, cols, k int, seed int64) *Model {
	r := NewRand(seed)
	n := rows * cols
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		xs[i] = float64(i%cols) + r.Float64() - 0.5
		ys[i] = float64(i/cols) + r.Float64() - 0.5
	}
	m := &Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = 2
		m.Factors = append(m.Factors, Factor{Vars: []int{i}, LogTable: []float64{0, 4*r.Float64() - 2}})
	}
	seen := map[Edge]bool{}
	idx := make([]int, n)
	for i := range n {
		for j := range idx {
			idx[j] = j
		}
		d := func(j int) float64 { return math.Hypot(xs[i]-xs[j], ys[i]-ys[j]) }
		slices.SortStableFunc(idx, func(a, b int) int {
			if da, db := d(a), d(b); da != db {
				if da < db {
					return -1
				}
				return 1
			}
			return a - b
		})
		for _, j := range idx[1 : k+1] {
			e := Edge{I: min(i, j), J: max(i, j)}
			if seen[e] {
				continue
			}
			seen[e] = true
			jv := 2 * r.Float64()
			m.Factors = append(m.Factors, Factor{Vars: []int{e.I, e.J}, LogTable: []float64{jv, 0, 0, jv}})
		}
	}
	return m
}

// UAIKindByName returns the stand-in named name.
func UAIKindByName(name string) (UAIKind, error) {
	for _, k := range UAIKinds() {
		if k.Name == name {
			return k, nil
		}
	}
	return UAIKind{}, fmt.Errorf("unknown kind %q", name)
}
