package exact

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/mrf"
)

// LogMarginals returns ln p(x_v) = ln Z(x_v) - ln Z for every visible vector
// of xs (xs[s][k] is the state of variable vis[k]), marginalising the other
// variables exactly: Z(x_v) is the partition function of m clamped to x_v
// (mrf.Clamp). Identical vectors are solved once. It also returns ln Z.
func LogMarginals(m *mrf.Model, vis []int, xs [][]int, opt Options) ([]float64, float64, error) {
	res, err := Solve(m, opt)
	if err != nil {
		return nil, math.NaN(), err
	}
	out := make([]float64, len(xs))
	done := map[string]float64{}
	var key []byte
	for s, x := range xs {
		if len(x) != len(vis) {
			return nil, math.NaN(), fmt.Errorf("visible vector %d has %d values, want %d", s, len(x), len(vis))
		}
		key = visibleKey(key[:0], x)
		if v, ok := done[string(key)]; ok {
			out[s] = v
			continue
		}
		c, err := mrf.Clamp(m, vis, x)
		if err != nil {
			return nil, math.NaN(), fmt.Errorf("visible vector %d: %w", s, err)
		}
		cr, err := Solve(c, opt)
		if err != nil {
			return nil, math.NaN(), fmt.Errorf("visible vector %d: %w", s, err)
		}
		out[s] = cr.LogZ - res.LogZ
		done[string(key)] = out[s]
	}
	return out, res.LogZ, nil
}

// visibleKey appends x's states to key as bytes, for grouping vectors.
func visibleKey(key []byte, x []int) []byte {
	for _, v := range x {
		key = append(key, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return key
}
