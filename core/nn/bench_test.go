package nn

import "testing"

// plaquettes returns the (L-1)² 2x2 squares of an L x L grid, node (r,c) =
// r·L+c, each sorted: RENN's root regions on grids.
func plaquettes(L int) [][]int {
	var roots [][]int
	for r := 0; r+1 < L; r++ {
		for c := 0; c+1 < L; c++ {
			v := r*L + c
			roots = append(roots, []int{v, v + 1, v + L, v + L + 1})
		}
	}
	return roots
}

func TestPlaquettes(t *testing.T) {
	roots := plaquettes(10)
	if len(roots) != 81 {
		t.Fatalf("%d plaquettes on a 10x10 grid, want 81", len(roots))
	}
	if want := []int{88, 89, 98, 99}; !equalInts(roots[80], want) {
		t.Fatalf("last plaquette %v, want %v", roots[80], want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// benchStep times one forward and backward pass of the whole network on the
// plaquettes of an L x L binary grid.
func benchStep(b *testing.B, L int, cfg Config) {
	cards := make([]int, L*L)
	for i := range cards {
		cards[i] = 2
	}
	net, err := NewAttentionNet(L*L, plaquettes(L), cards, cfg)
	if err != nil {
		b.Fatal(err)
	}
	d := copyLogits(net.Forward())
	for r := range d {
		for i := range d[r] {
			d[r][i] = float64(i%3) - 1
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		net.Forward()
		net.ZeroGrad()
		net.Backward(d)
	}
	b.ReportMetric(float64(NumParams(net.Params())), "params")
}

func BenchmarkStepGrid10(b *testing.B)     { benchStep(b, 10, Config{Dim: 64}) }
func BenchmarkStepGrid10D200(b *testing.B) { benchStep(b, 10, Config{Dim: 200}) }
func BenchmarkStepGrid20(b *testing.B)     { benchStep(b, 20, Config{Dim: 64}) }
func BenchmarkStepGrid10Single(b *testing.B) {
	benchStep(b, 10, Config{Dim: 64, SingleLayerBlocks: true})
}

func BenchmarkAdamGrid10(b *testing.B) {
	cards := make([]int, 100)
	for i := range cards {
		cards[i] = 2
	}
	net, err := NewAttentionNet(100, plaquettes(10), cards, Config{Dim: 64})
	if err != nil {
		b.Fatal(err)
	}
	a := NewAdam(net.Params(), 1e-3)
	for b.Loop() {
		a.Step()
	}
}
