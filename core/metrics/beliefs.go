package metrics

import "math"

// MaxAbsDiff is the largest |a_i[x] − b_i[x]| over every entry of two sets
// of beliefs (say two runs' variable marginals, or their factor marginals),
// where a belief both lack is skipped; ok is false when the sets do not
// match: different counts, or a belief one has and the other lacks or holds
// with another number of entries.
func MaxAbsDiff(a, b [][]float64) (d float64, ok bool) {
	if len(a) != len(b) {
		return 0, false
	}
	for i := range a {
		x, y := a[i], b[i]
		if len(x) != len(y) {
			return 0, false
		}
		for k := range x {
			d = max(d, math.Abs(x[k]-y[k]))
		}
	}
	return d, true
}

// RootMeanSquare is sqrt(mean(x²)) over xs; NaN when xs is empty.
func RootMeanSquare(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x * x
	}
	return math.Sqrt(s / float64(len(xs)))
}
