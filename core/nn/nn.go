// Package nn holds the hand-written networks of RENN. Each maps its
// parameters to one logit vector per root region:
//
//   - the paper's attention network (NewAttentionNet): a learned embedding
//     per variable, one self-attention block shared by all variables, and
//     one residual MLP head per root-region shape over the concatenated
//     embeddings of a root's variables;
//   - the message network (NewMessageNet), which reads the model: each
//     root's negative energy plus weighted input features plus free
//     messages on its children;
//   - free logits per root state (NewDirectNet), an ablation.
//
// There is no automatic differentiation: every layer has a forward and a
// backward pass written on gonum's blas64, and every derivative is checked
// against central finite differences in the tests. A Net owns its parameters
// and keeps all of its work space between calls, so a training step makes no
// large allocations.
//
// A typical training step is
//
//	logits := net.Forward()
//	// ... softmax, loss, dLoss/dLogits ...
//	net.ZeroGrad()
//	net.Backward(dLogits)
//	adam.Step()
package nn

import (
	"errors"
	"fmt"
)

// Param is one parameter tensor, stored flat (matrices row-major), with the
// gradient accumulated by Backward beside it.
type Param struct {
	Name  string
	Value []float64
	Grad  []float64
}

func newParam(name string, n int) *Param {
	return &Param{Name: name, Value: make([]float64, n), Grad: make([]float64, n)}
}

// Net maps its own parameters to one logit vector per root region. The logits
// of a root are row-major over its variables in the order given, the last
// variable fastest, like mrf.Factor tables.
//
// Shapes passed to Backward must match those returned by Forward; a mismatch
// is a programming error and panics, as shape errors do in gonum.
type Net interface {
	// Forward returns the logits of every root, in the order the roots were
	// given. The slices belong to the net and stay valid until the next Forward.
	Forward() [][]float64
	// Backward adds d loss/d params to every Param.Grad, given d loss/d logits.
	// It differentiates at the parameters of the last Forward, so parameters
	// must not change between the two.
	Backward(dLogits [][]float64)
	// Params returns the parameters; the same pointers on every call.
	Params() []*Param
	// ZeroGrad sets every gradient to zero.
	ZeroGrad()
}

// NumParams returns the number of scalar parameters in params.
func NumParams(params []*Param) int {
	n := 0
	for _, p := range params {
		n += len(p.Value)
	}
	return n
}

// Snapshot returns a copy of all parameter values, concatenated in order. It
// serves warm starts: Restore puts them back.
func Snapshot(params []*Param) []float64 {
	w := make([]float64, 0, NumParams(params))
	for _, p := range params {
		w = append(w, p.Value...)
	}
	return w
}

// Restore sets the parameter values from w, as returned by Snapshot for
// parameters of the same shapes.
func Restore(params []*Param, w []float64) error {
	if n := NumParams(params); len(w) != n {
		return fmt.Errorf("restore: snapshot has %d values, parameters have %d", len(w), n)
	}
	for _, p := range params {
		copy(p.Value, w[:len(p.Value)])
		w = w[len(p.Value):]
	}
	return nil
}

func zeroGrad(params []*Param) {
	for _, p := range params {
		clear(p.Grad)
	}
}

// checkRoots validates root scopes against cards and returns each root's
// number of joint states.
func checkRoots(roots [][]int, cards []int, maxStates int) ([]int, error) {
	if len(roots) == 0 {
		return nil, errors.New("no root regions")
	}
	for v, c := range cards {
		if c < 1 {
			return nil, fmt.Errorf("variable %d has cardinality %d, want >= 1", v, c)
		}
	}
	states := make([]int, len(roots))
	seen := make(map[int]bool)
	for r, vars := range roots {
		if len(vars) == 0 {
			return nil, fmt.Errorf("root %d has no variables", r)
		}
		clear(seen)
		s := 1
		for _, v := range vars {
			if v < 0 || v >= len(cards) {
				return nil, fmt.Errorf("root %d: variable %d out of range [0,%d)", r, v, len(cards))
			}
			if seen[v] {
				return nil, fmt.Errorf("root %d: variable %d repeated in %v", r, v, vars)
			}
			seen[v] = true
			if s > maxStates/cards[v] {
				return nil, fmt.Errorf("root %d: more than %d joint states", r, maxStates)
			}
			s *= cards[v]
		}
		states[r] = s
	}
	return states, nil
}

// checkGrads panics unless dLogits has the shape of logits.
func checkGrads(logits, dLogits [][]float64) {
	if len(dLogits) != len(logits) {
		panic(fmt.Sprintf("nn: Backward got %d gradient vectors for %d roots", len(dLogits), len(logits)))
	}
	for r := range logits {
		if len(dLogits[r]) != len(logits[r]) {
			panic(fmt.Sprintf("nn: Backward: root %d gradient has length %d, want %d", r, len(dLogits[r]), len(logits[r])))
		}
	}
}
