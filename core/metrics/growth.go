package metrics

import "math"

// GrowthExponent is the least-squares slope of log y against log n over the
// points with n >= minN and a finite positive y: cost that grows like n^slope.
// NaN with fewer than two such points.
func GrowthExponent(n, y []float64, minN float64) float64 {
	var xs, ys []float64
	for i := range n {
		if n[i] >= minN && y[i] > 0 && !math.IsInf(y[i], 0) && !math.IsNaN(y[i]) {
			xs = append(xs, math.Log(n[i]))
			ys = append(ys, math.Log(y[i]))
		}
	}
	if len(xs) < 2 {
		return math.NaN()
	}
	mx, my := mean(xs), mean(ys)
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return math.NaN()
	}
	return sxy / sxx
}
