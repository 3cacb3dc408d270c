package gbp_test

import (
	"math"
	"slices"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// The reference below is a deliberately plain transcription of the
// parent-to-child rules, written from the definitions with sets and full
// assignments, for checking the fast implementation.

// descendants returns E(r) = {r} ∪ descendants(r) as a set.
func descendants(g *region.Graph, r int) map[int]bool {
	set := map[int]bool{r: true}
	var walk func(int)
	walk = func(x int) {
		for _, c := range g.Regions[x].Children {
			if !set[c] {
				set[c] = true
				walk(c)
			}
		}
	}
	walk(r)
	return set
}

// regionStates enumerates the joint states of vars (row-major, last fastest)
// as full assignments (entries outside vars are 0).
func regionStates(cards []int, vars []int) [][]int {
	var out [][]int
	x := make([]int, len(cards))
	var rec func(k int)
	rec = func(k int) {
		if k == len(vars) {
			out = append(out, slices.Clone(x))
			return
		}
		for s := 0; s < cards[vars[k]]; s++ {
			x[vars[k]] = s
			rec(k + 1)
		}
		x[vars[k]] = 0
	}
	rec(0)
	return out
}

// stateIndex returns the row-major index of x restricted to vars.
func stateIndex(cards, vars, x []int) int {
	idx := 0
	for _, v := range vars {
		idx = idx*cards[v] + x[v]
	}
	return idx
}

// refSweep applies one sweep of the documented schedule to msgs (log
// messages indexed like order): each edge out of a root region in order,
// damped by alpha, each followed by the exact (undamped) update, in order,
// of every edge whose parent lies in E(child).
func refSweep(g *region.Graph, m *mrf.Model, order [][2]int, msgs [][]float64, alpha float64) {
	for e, pc := range order {
		if g.Regions[pc[0]].Level != 0 {
			continue
		}
		refUpdate(g, m, order, msgs, e, alpha)
		below := descendants(g, pc[1])
		for k, qc := range order {
			if below[qc[0]] {
				refUpdate(g, m, order, msgs, k, 0)
			}
		}
	}
}

// refUpdate applies the textbook update to message e.
func refUpdate(g *region.Graph, m *mrf.Model, order [][2]int, msgs [][]float64, e int, alpha float64) {
	edgeOf := map[[2]int]int{}
	for k, pc := range order {
		edgeOf[pc] = k
	}
	P, C := order[e][0], order[e][1]
	EP, EC := descendants(g, P), descendants(g, C)
	var num, den [][2]int
	for I := range g.Regions {
		for _, J := range g.Regions[I].Children {
			switch {
			case EP[J] && !EC[J] && !EP[I]:
				num = append(num, [2]int{I, J})
			case EC[J] && EP[I] && !EC[I] && !(I == P && J == C):
				den = append(den, [2]int{I, J})
			}
		}
	}
	inC := map[int]bool{}
	for _, a := range g.Regions[C].Factors {
		inC[a] = true
	}
	cv := g.Regions[C].Vars
	terms := make([][]float64, mrf.TableSize(m.Cards, cv))
	for _, x := range regionStates(m.Cards, g.Regions[P].Vars) {
		s := 0.0
		for _, a := range g.Regions[P].Factors {
			if !inC[a] {
				f := &m.Factors[a]
				s += f.LogTable[f.Index(m.Cards, x)]
			}
		}
		for _, ij := range num {
			s += msgs[edgeOf[ij]][stateIndex(m.Cards, g.Regions[ij[1]].Vars, x)]
		}
		y := stateIndex(m.Cards, cv, x)
		terms[y] = append(terms[y], s)
	}
	out := make([]float64, len(terms))
	for y, x := range regionStates(m.Cards, cv) {
		out[y] = infer.LogSumExp(terms[y])
		for _, ij := range den {
			d := msgs[edgeOf[ij]][stateIndex(m.Cards, g.Regions[ij[1]].Vars, x)]
			if math.IsInf(d, -1) {
				out[y] = math.Inf(-1)
			} else if !math.IsInf(out[y], -1) {
				out[y] -= d
			}
		}
	}
	infer.ShiftMax(out)
	if alpha > 0 {
		for y := range out {
			out[y] = (1-alpha)*out[y] + alpha*msgs[e][y]
		}
		infer.ShiftMax(out)
	}
	msgs[e] = out
}

// refBeliefs returns every region's belief from msgs by the belief formula
// of the package comment, from the definitions.
func refBeliefs(g *region.Graph, m *mrf.Model, order [][2]int, msgs [][]float64) [][]float64 {
	b := make([][]float64, len(g.Regions))
	for r := range g.Regions {
		E := descendants(g, r)
		vars := g.Regions[r].Vars
		var logb []float64
		for _, x := range regionStates(m.Cards, vars) {
			s := 0.0
			for _, a := range g.Regions[r].Factors {
				f := &m.Factors[a]
				s += f.LogTable[f.Index(m.Cards, x)]
			}
			for k, ij := range order {
				if E[ij[1]] && !E[ij[0]] {
					s += msgs[k][stateIndex(m.Cards, g.Regions[ij[1]].Vars, x)]
				}
			}
			logb = append(logb, s)
		}
		b[r] = infer.NormalizeLog(logb)
	}
	return b
}

// refMarginal returns the marginal of a belief over vars onto sub ⊆ vars
// (row-major over sub in its own order).
func refMarginal(cards, vars, sub []int, b []float64) []float64 {
	out := make([]float64, mrf.TableSize(cards, sub))
	for x, full := range regionStates(cards, vars) {
		out[stateIndex(cards, sub, full)] += b[x]
	}
	return out
}

// refFreeEnergy returns Σ_R c_R Σ_x b_R(x) (E_R(x) + ln b_R(x)) with the
// region energies built from the factors by enumeration.
func refFreeEnergy(g *region.Graph, m *mrf.Model, b [][]float64) float64 {
	F := 0.0
	for r := range g.Regions {
		R := &g.Regions[r]
		s := 0.0
		for x, full := range regionStates(m.Cards, R.Vars) {
			p := b[r][x]
			if p == 0 {
				continue
			}
			e := 0.0
			for _, a := range R.Factors {
				f := &m.Factors[a]
				e -= f.LogTable[f.Index(m.Cards, full)]
			}
			s += p * (e + math.Log(p))
		}
		F += R.Counting * s
	}
	return F
}
