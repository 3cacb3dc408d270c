package metrics

import "math"

// Learning curves: a score per epoch (test NLL), NaN where an epoch's score
// is undefined.

// TailMean is the mean of the last k entries of curve, NaN entries skipped
// (fewer if the curve is shorter); NaN when none is left.
func TailMean(curve []float64, k int) float64 {
	sum, n := 0.0, 0
	for _, v := range curve[max(0, len(curve)-k):] {
		if !math.IsNaN(v) {
			sum += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// Lowest is the smallest entry of curve, NaN entries skipped; NaN when none
// is left.
func Lowest(curve []float64) float64 {
	b := math.Inf(1)
	for _, v := range curve {
		if !math.IsNaN(v) {
			b = min(b, v)
		}
	}
	if math.IsInf(b, 1) {
		return math.NaN()
	}
	return b
}

// MeanCurve averages curves of different lengths epoch by epoch, carrying
// each curve's last value forward; NaN entries are skipped, and an epoch
// where every curve is NaN is NaN.
func MeanCurve(curves [][]float64) []float64 {
	n := 0
	for _, c := range curves {
		n = max(n, len(c))
	}
	out := make([]float64, n)
	for e := range out {
		sum, k := 0.0, 0
		for _, c := range curves {
			if len(c) == 0 {
				continue
			}
			if v := c[min(e, len(c)-1)]; !math.IsNaN(v) {
				sum += v
				k++
			}
		}
		out[e] = math.NaN()
		if k > 0 {
			out[e] = sum / float64(k)
		}
	}
	return out
}

// LastWithin is the index of the last epoch whose cumulative seconds (the
// sum of seconds up to it) are at most budget; -1 when the first epoch
// already takes longer.
func LastWithin(seconds []float64, budget float64) int {
	used, at := 0.0, -1
	for e, v := range seconds {
		if used += v; used > budget {
			break
		}
		at = e
	}
	return at
}
