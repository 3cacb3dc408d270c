package infer

import "math"

// LogSumExp returns ln Σ exp(x[k]) without overflow. It is -Inf for an empty
// slice or when every entry is -Inf, and +Inf if any entry is +Inf.
func LogSumExp(x []float64) float64 {
	mx, s := logSumParts(x)
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return mx
	}
	return mx + math.Log(s)
}

// logSumParts returns the largest entry mx of x (NaN if any is NaN) and,
// when mx is finite, s = Σ exp(x[k] - mx) >= 1, so ln Σ exp(x) = mx + ln s.
// Callers that normalise use x[k] - mx and s apart: when |mx| is so large
// that ln s is below its rounding step (|mx| > 2^52 ln 2 or so), mx + ln s
// rounds to mx and x[k] - (mx + ln s) would no longer normalise.
func logSumParts(x []float64) (mx, s float64) {
	mx = math.Inf(-1)
	for _, v := range x {
		if v > mx || math.IsNaN(v) {
			mx = v
		}
	}
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return mx, 0
	}
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	return mx, s
}

// NormalizeLog returns the probabilities exp(logp[k]) / Σ exp(logp), computed
// without overflow. If every entry is -Inf (no mass anywhere) the result is
// uniform, so callers never see NaN; use NormalizeLogTo to detect that case.
func NormalizeLog(logp []float64) []float64 {
	p := make([]float64, len(logp))
	NormalizeLogTo(p, logp)
	return p
}

// NormalizeLogTo writes the probabilities of logp into dst (which may alias
// logp) and returns ln Σ exp(logp), the log normaliser. When that is -Inf, dst
// is set uniform. dst must be at least as long as logp.
func NormalizeLogTo(dst, logp []float64) float64 {
	mx, s := logSumParts(logp)
	dst = dst[:len(logp)]
	if math.IsInf(mx, -1) {
		for k := range dst {
			dst[k] = 1 / float64(len(dst))
		}
		return mx
	}
	if math.IsInf(mx, 1) || math.IsNaN(mx) {
		for k, v := range logp {
			dst[k] = math.Exp(v - mx) // 0, or NaN at +Inf and NaN entries
		}
		return mx
	}
	lse := mx + math.Log(s)
	if math.Abs(mx) <= exactShift {
		for k, v := range logp {
			dst[k] = math.Exp(v - lse)
		}
		return lse
	}
	inv := 1 / s
	for k, v := range logp {
		dst[k] = math.Exp(v-mx) * inv
	}
	return lse
}

// exactShift is the largest |mx| at which NormalizeLogTo and ShiftLog
// subtract lse = mx + ln s from every entry in one step: the rounding of
// lse then moves a probability by at most 2^20 · 2^-53 = 2^-33 relative.
// Beyond it they subtract mx and ln s apart (see logSumParts). The results
// of the two ways differ in the last bits, and results below exactShift
// are kept as every method has always computed them.
const exactShift = 1 << 20

// ShiftLog subtracts ln Σ exp(x) from every entry of x in place, so that x
// becomes a normalised log-probability vector, and returns the subtracted
// value. When every entry is -Inf, x is set to the uniform log-probability
// -ln len(x) and -Inf is returned.
func ShiftLog(x []float64) float64 {
	mx, s := logSumParts(x)
	if math.IsInf(mx, -1) {
		u := -math.Log(float64(len(x)))
		for k := range x {
			x[k] = u
		}
		return mx
	}
	if math.IsInf(mx, 1) || math.IsNaN(mx) {
		for k := range x {
			x[k] -= mx
		}
		return mx
	}
	ls := math.Log(s)
	lse := mx + ls
	if math.Abs(mx) <= exactShift {
		for k := range x {
			x[k] -= lse
		}
		return lse
	}
	for k := range x {
		x[k] = (x[k] - mx) - ls
	}
	return lse
}

// XLogX returns x ln x with the convention 0 ln 0 = 0.
func XLogX(x float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(x)
}

// ShiftMax subtracts the largest entry of x from every entry in place, so the
// largest becomes 0, and returns it. This normalises a log message up to a
// constant without any exp or log. When every entry is -Inf, x is set to
// zeros (uniform) and -Inf is returned.
func ShiftMax(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = max(mx, v)
	}
	if math.IsInf(mx, -1) {
		clear(x)
		return mx
	}
	for k := range x {
		x[k] -= mx
	}
	return mx
}
