package trw

import (
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// finish fills in res's marginals and the primal objective from the
// current messages, and LogZ from bound, the certified bound at them
// (constant factors left out).
func (t *TRW) finish(m *mrf.Model, res *infer.Result, bound float64) {
	g := t.g
	t.computePhi()
	res.Marginals.Vars = make([][]float64, g.NumVars())
	res.Marginals.Factors = make([][]float64, g.NumFactors())
	degenerate := 0
	primal, constant := 0.0, 0.0
	for i := range g.Cards {
		b := make([]float64, g.Cards[i])
		if math.IsInf(infer.NormalizeLogTo(b, t.phiOf(i)), -1) {
			degenerate++
		}
		res.Marginals.Vars[i] = b
		primal -= negEntropy(b)
	}
	for a := range m.Factors {
		f := &m.Factors[a]
		switch len(f.Vars) {
		case 0:
			constant += f.LogTable[0]
			res.Marginals.Factors[a] = []float64{1}
		case 1:
			b := append([]float64(nil), res.Marginals.Vars[f.Vars[0]]...)
			res.Marginals.Factors[a] = b
			primal += expect(b, f.LogTable)
		default:
			b := t.factorBelief(a, f)
			if math.IsInf(infer.ShiftLog(b), -1) {
				degenerate++
			}
			for k, l := range b {
				b[k] = math.Exp(l) // exp(-Inf) = 0
			}
			res.Marginals.Factors[a] = b
			// ρ_a I_a = ρ_a (Σ_j H(b_j) - H(b_a)).
			info := negEntropy(b)
			for _, v := range f.Vars {
				info -= negEntropy(res.Marginals.Vars[v])
			}
			primal += expect(b, f.LogTable) - t.rho[a]*info
		}
	}
	primal += constant
	bound += constant
	res.LogZ = bound
	res.FreeEnergy = -bound
	res.Diagnostics["primal_logz"] = primal
	res.Diagnostics["bound_gap"] = bound - primal
	res.Diagnostics["degenerate_messages"] = float64(t.degenerate)
	res.Diagnostics["degenerate_beliefs"] = float64(degenerate)
}

// factorBelief returns ln b_a up to a constant: θ_a/ρ_a + Σ_j c_{a,j}.
func (t *TRW) factorBelief(a int, f *mrf.Factor) []float64 {
	axes := t.g.Axes[a]
	b := make([]float64, len(f.LogTable))
	inv := 1 / t.rho[a]
	for k, l := range f.LogTable {
		b[k] = l * inv
	}
	for p, v := range f.Vars {
		c := t.cavOf(p, axes[p].Card)
		t.cavity(v, t.edgeOff[a]+p, c)
		infer.AddAlong(b, axes[p], c)
	}
	return b
}

// bound returns (1/S) Σ_T ln Z(θ^T) for the current messages, with φ
// already computed (see the package comment). Constant factors are left
// to the caller.
func (t *TRW) bound(m *mrf.Model) float64 {
	pot := func(a int, dst []float64) {
		f := &m.Factors[a]
		inv := 1 / t.rho[a]
		for k, l := range f.LogTable {
			dst[k] = l * inv
		}
		for p := range f.Vars {
			c := t.out[:t.g.Axes[a][p].Card]
			for x, l := range t.msgOf(t.edgeOff[a] + p) {
				c[x] = -l
				if math.IsInf(l, -1) {
					c[x] = 0 // φ is -Inf there: an excluded state
				}
			}
			infer.AddAlong(dst, t.g.Axes[a][p], c)
		}
	}
	sum := 0.0
	for _, pl := range t.plans {
		copy(t.node, t.phi)
		sum += pl.logZ(t.g, t.varOff, t.node, pot, t.table, t.out)
	}
	return sum / float64(len(t.plans))
}

// negEntropy returns Σ p ln p.
func negEntropy(p []float64) float64 {
	s := 0.0
	for _, v := range p {
		s += infer.XLogX(v)
	}
	return s
}

// expect returns Σ p·l over the entries of positive probability.
func expect(p, l []float64) float64 {
	s := 0.0
	for k, v := range p {
		if v > 0 {
			s += v * l[k]
		}
	}
	return s
}
