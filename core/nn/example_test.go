package nn_test

import (
	"fmt"
	"math"

	"github.com/renn-go/renn/core/nn"
)

// Fit the beliefs of two binary pair regions of a 3-variable chain to
// targets by minimising a squared loss on the softmax of the logits.
func ExampleNewAttentionNet() {
	cards := []int{2, 2, 2}
	roots := [][]int{{0, 1}, {1, 2}}
	net, err := nn.NewAttentionNet(len(cards), roots, cards, nn.Config{Dim: 8, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	target := [][]float64{{0.4, 0.1, 0.1, 0.4}, {0.25, 0.25, 0.25, 0.25}}
	p := [][]float64{make([]float64, 4), make([]float64, 4)}
	dp := make([]float64, 4)
	dLogits := [][]float64{make([]float64, 4), make([]float64, 4)}
	adam := nn.NewAdam(net.Params(), 1e-2)

	loss := 0.0
	for range 200 {
		loss = 0
		for r, logits := range net.Forward() {
			nn.Softmax(logits, p[r])
			for i := range dp {
				diff := p[r][i] - target[r][i]
				loss += diff * diff
				dp[i] = 2 * diff
			}
			nn.SoftmaxBackward(p[r], dp, dLogits[r])
		}
		net.ZeroGrad()
		net.Backward(dLogits)
		adam.Step()
	}
	fmt.Printf("loss below 1e-6: %v\n", loss < 1e-6)
	fmt.Printf("p(x0=0, x1=0) = %.3f\n", math.Round(p[0][0]*1000)/1000)
	// Output:
	// loss below 1e-6: true
	// p(x0=0, x1=0) = 0.400
}
