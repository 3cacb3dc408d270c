package nn

import (
	"fmt"

	"github.com/renn-go/renn/core/mrf"
)

// maxDirectStates bounds the total number of free logits of a DirectNet.
const maxDirectStates = 1 << 26

// directInitStd is the standard deviation of a DirectNet's initial logits:
// small, so the first beliefs are near uniform, but not zero, so the seed
// matters as it does for the attention net.
const directInitStd = 0.1

// directNet holds one free logit per joint state of every root: the
// ablation of RENN without a network.
type directNet struct {
	logits *Param
	out    [][]float64 // per root, views of buf
	buf    []float64
	offs   []int // offset of each root in logits
}

// NewDirectNet returns free logits for the given roots (each a list of
// distinct variables with cardinalities cards), initialised N(0, 0.1²) from
// seed through mrf.NewRand.
func NewDirectNet(roots [][]int, cards []int, seed int64) (Net, error) {
	states, err := checkRoots(roots, cards, maxDirectStates)
	if err != nil {
		return nil, fmt.Errorf("direct net: %w", err)
	}
	total := 0
	n := &directNet{out: make([][]float64, len(roots)), offs: make([]int, len(roots))}
	for r, s := range states {
		if total > maxDirectStates-s {
			return nil, fmt.Errorf("direct net: more than %d logits in all", maxDirectStates)
		}
		n.offs[r] = total
		total += s
	}
	n.logits = newParam("logits", total)
	n.buf = make([]float64, total)
	for r, s := range states {
		n.out[r] = n.buf[n.offs[r] : n.offs[r]+s]
	}
	rng := mrf.NewRand(seed)
	for i := range n.logits.Value {
		n.logits.Value[i] = directInitStd * rng.NormFloat64()
	}
	return n, nil
}

// Forward copies the logits, so a caller writing to them cannot change the
// parameters.
func (n *directNet) Forward() [][]float64 {
	copy(n.buf, n.logits.Value)
	return n.out
}

func (n *directNet) Backward(dLogits [][]float64) {
	checkGrads(n.out, dLogits)
	for r, d := range dLogits {
		g := n.logits.Grad[n.offs[r]:]
		for i, v := range d {
			g[i] += v
		}
	}
}

func (n *directNet) Params() []*Param { return []*Param{n.logits} }

func (n *directNet) ZeroGrad() { clear(n.logits.Grad) }
