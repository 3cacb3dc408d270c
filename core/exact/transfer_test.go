package exact

import (
	"github.com/renn-go/renn/core/infer/infertest"
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// transferLogZ computes log Z of an L x L grid Ising model built by
// mrf.RandomIsing by a transfer matrix over sites in row-major order: the
// state is the last L sites, oldest in bit 0. clamp fixes variables (-1 for
// free). It shares no code with the package.
func transferLogZ(m *mrf.Model, L int, clamp []int) float64 {
	edges, _ := mrf.GridEdges(L, false)
	factorOf := map[mrf.Edge]int{}
	for e, ed := range edges {
		factorOf[ed] = L*L + e
	}
	pot := func(a int) []float64 {
		out := make([]float64, len(m.Factors[a].LogTable))
		for i, x := range m.Factors[a].LogTable {
			out[i] = math.Exp(x)
		}
		return out
	}
	vec := make([]float64, 1<<L)
	next := make([]float64, 1<<L)
	vec[0] = 1
	logScale := 0.0
	for i := 0; i < L*L; i++ {
		r, c := i/L, i%L
		unary := pot(i)
		var up, left []float64
		if r > 0 {
			up = pot(factorOf[mrf.Edge{I: i - L, J: i}])
		}
		if c > 0 {
			left = pot(factorOf[mrf.Edge{I: i - 1, J: i}])
		}
		clear(next)
		for idx, w := range vec {
			if w == 0 {
				continue
			}
			oldest, newest := idx&1, (idx>>(L-1))&1
			for x := 0; x < 2; x++ {
				if clamp != nil && clamp[i] >= 0 && clamp[i] != x {
					continue
				}
				p := w * unary[x]
				if up != nil {
					p *= up[oldest*2+x]
				}
				if left != nil {
					p *= left[newest*2+x]
				}
				next[(idx>>1)|(x<<(L-1))] += p
			}
		}
		mx := 0.0
		for _, x := range next {
			mx = max(mx, x)
		}
		for j := range next {
			next[j] /= mx
		}
		logScale += math.Log(mx)
		vec, next = next, vec
	}
	s := 0.0
	for _, x := range vec {
		s += x
	}
	return logScale + math.Log(s)
}

// TestSolveGridTransferMatrix checks an 8x8 grid (too big for brute force)
// against the transfer matrix: log Z, every variable marginal and a few
// pairwise factor marginals, with and without checkpointing.
func TestSolveGridTransferMatrix(t *testing.T) {
	const L = 8
	m := gridModel(t, L, 1, 21)
	logZ := transferLogZ(m, L, nil)
	for _, mem := range []int64{DefaultMemory, 1, 32 << 10} {
		got, err := Solve(m, infertest.With(DefaultOptions(), func(o *Options) { o.Memory = mem }))
		if err != nil {
			t.Fatal(err)
		}
		if !closeTo(got.LogZ, logZ, 1e-12) {
			t.Errorf("memory %d: log Z %.15g, transfer matrix %.15g", mem, got.LogZ, logZ)
		}
		clamp := make([]int, L*L)
		for i := range clamp {
			clamp[i] = -1
		}
		for v := 0; v < L*L; v += 3 {
			clamp[v] = 1
			p := math.Exp(transferLogZ(m, L, clamp) - logZ)
			clamp[v] = -1
			if math.Abs(got.Marginals.Vars[v][1]-p) > 1e-10 || math.Abs(got.Marginals.Vars[v][0]-(1-p)) > 1e-10 {
				t.Errorf("memory %d: p(x%d) = %v, transfer matrix p(1) = %v", mem, v, got.Marginals.Vars[v], p)
			}
		}
		for a := L * L; a < len(m.Factors); a += 7 {
			f := m.Factors[a]
			for s := 0; s < 4; s++ {
				clamp[f.Vars[0]], clamp[f.Vars[1]] = s/2, s%2
				p := math.Exp(transferLogZ(m, L, clamp) - logZ)
				if math.Abs(got.Marginals.Factors[a][s]-p) > 1e-10 {
					t.Errorf("memory %d: factor %d marginal[%d] = %v, transfer matrix %v", mem, a, s, got.Marginals.Factors[a][s], p)
				}
			}
			clamp[f.Vars[0]], clamp[f.Vars[1]] = -1, -1
		}
	}
}
