package gbp_test

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// gridExact returns ln Z and the variable marginals of a binary pairwise
// model on an L x L grid (node (r,c) is r·L+c) by a row-by-row transfer
// matrix: the rows' joint states are 2^L, and each vertical edge is summed
// out one column at a time, so a 10x10 grid costs about L²·2^L operations.
// It is the ground truth for grids too large to enumerate.
func gridExact(m *mrf.Model, L int) (float64, [][]float64, error) {
	if len(m.Cards) != L*L || L > 16 {
		return 0, nil, fmt.Errorf("grid exact: %d variables, want %d (L <= 16)", len(m.Cards), L*L)
	}
	for _, c := range m.Cards {
		if c != 2 {
			return 0, nil, fmt.Errorf("grid exact: cardinality %d, want binary", c)
		}
	}
	S := 1 << L
	row := make([][]float64, L)      // row[r][s]: factors inside row r at row state s
	vert := make([][]*mrf.Factor, L) // vert[r][c]: factor between (r,c) and (r+1,c)
	for r := range row {
		row[r] = make([]float64, S)
		vert[r] = make([]*mrf.Factor, L)
	}
	bit := func(s, c int) int { return (s >> c) & 1 }
	for a := range m.Factors {
		f := &m.Factors[a]
		switch len(f.Vars) {
		case 1:
			r, c := f.Vars[0]/L, f.Vars[0]%L
			for s := range S {
				row[r][s] += f.LogTable[bit(s, c)]
			}
		case 2:
			u, v := f.Vars[0], f.Vars[1]
			ru, cu, rv, cv := u/L, u%L, v/L, v%L
			switch {
			case ru == rv:
				for s := range S {
					row[ru][s] += f.LogTable[2*bit(s, cu)+bit(s, cv)]
				}
			case cu == cv && (rv == ru+1 || ru == rv+1) && vert[min(ru, rv)][cu] == nil:
				vert[min(ru, rv)][cu] = f
			default:
				return 0, nil, fmt.Errorf("grid exact: factor %d over %v is not a grid edge", a, f.Vars)
			}
		default:
			return 0, nil, fmt.Errorf("grid exact: factor %d has %d variables", a, len(f.Vars))
		}
	}
	// psi returns the log potential of vert[r][c] at upper state b, lower t.
	psi := func(r, c, b, t int) float64 {
		f := vert[r][c]
		if f == nil {
			return 0
		}
		if f.Vars[0]/L == r {
			return f.LogTable[2*b+t]
		}
		return f.LogTable[2*t+b]
	}
	// transfer replaces, column by column, the upper row state in v by the
	// lower one (down) or the lower by the upper (!down), summing the
	// vertical factors between rows r and r+1.
	tmp := make([]float64, S)
	pair := make([]float64, 2)
	transfer := func(v []float64, r int, down bool) {
		for c := range L {
			for s := range S {
				to := bit(s, c)
				for from := range 2 {
					x := s&^(1<<c) | from<<c
					if down {
						pair[from] = v[x] + psi(r, c, from, to)
					} else {
						pair[from] = v[x] + psi(r, c, to, from)
					}
				}
				tmp[s] = infer.LogSumExp(pair)
			}
			copy(v, tmp)
		}
	}
	alpha := make([][]float64, L)
	alpha[0] = append([]float64(nil), row[0]...)
	for r := 1; r < L; r++ {
		v := append([]float64(nil), alpha[r-1]...)
		transfer(v, r-1, true)
		for s := range v {
			v[s] += row[r][s]
		}
		alpha[r] = v
	}
	beta := make([][]float64, L)
	beta[L-1] = make([]float64, S)
	for r := L - 2; r >= 0; r-- {
		v := make([]float64, S)
		for s := range v {
			v[s] = row[r+1][s] + beta[r+1][s]
		}
		transfer(v, r, false)
		beta[r] = v
	}
	logZ := infer.LogSumExp(alpha[L-1])
	marg := make([][]float64, L*L)
	for i := range marg {
		marg[i] = make([]float64, 2)
	}
	for r := range L {
		for s := range S {
			p := math.Exp(alpha[r][s] + beta[r][s] - logZ)
			for c := range L {
				marg[r*L+c][bit(s, c)] += p
			}
		}
	}
	return logZ, marg, nil
}
