package nn

import (
	"fmt"
	"math"
)

// Softmax sets out[i] = exp(logits[i]) / Σ_j exp(logits[j]), computed
// without overflow. out may alias logits. A -Inf logit gets probability 0; if
// every logit is -Inf the result is NaN. Slices of different lengths panic.
func Softmax(logits, out []float64) {
	if len(out) != len(logits) {
		panic(fmt.Sprintf("nn: Softmax: out has length %d, logits %d", len(out), len(logits)))
	}
	m := math.Inf(-1)
	for _, v := range logits {
		m = math.Max(m, v)
	}
	s := 0.0
	for i, v := range logits {
		e := math.Exp(v - m)
		out[i] = e
		s += e
	}
	for i := range out {
		out[i] /= s
	}
}

// SoftmaxBackward sets dlogits = p ⊙ (dp - <p, dp>), the gradient with respect
// to the logits of a loss whose gradient with respect to p = Softmax(logits)
// is dp. dlogits may alias dp. Slices of different lengths panic.
func SoftmaxBackward(p, dp, dlogits []float64) {
	if len(dp) != len(p) || len(dlogits) != len(p) {
		panic(fmt.Sprintf("nn: SoftmaxBackward: lengths %d, %d, %d differ", len(p), len(dp), len(dlogits)))
	}
	dot := 0.0
	for i, v := range p {
		dot += v * dp[i]
	}
	for i, v := range p {
		dlogits[i] = v * (dp[i] - dot)
	}
}
