package nn

import (
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// Five variables, variable 2 with three states. Roots {0,1} and {3,4} share
// the 2-variable binary head; {0,1,3,4} has its own 16-state head; {2,3} is a
// 2-variable root with 6 states and a head of its own.
var (
	tinyCards = []int{2, 2, 3, 2, 2}
	tinyRoots = [][]int{{0, 1}, {3, 4}, {0, 1, 3, 4}, {2, 3}, {1, 4}}
	tinySizes = []int{4, 4, 16, 6, 4}
)

// netLossAndGrad returns Σ c ⊙ logits with fixed random c, and sets the gradient of
// that loss in every Param.Grad.
func netLossAndGrad(t *testing.T, net Net, seed int64) (func() float64, []target) {
	t.Helper()
	rng := mrf.NewRand(seed)
	logits := net.Forward()
	c := make([][]float64, len(logits))
	for r, l := range logits {
		c[r] = make([]float64, len(l))
		fillNormal(rng, c[r])
	}
	loss := func() float64 {
		s := 0.0
		for r, l := range net.Forward() {
			s += dot(c[r], l)
		}
		return s
	}
	net.ZeroGrad()
	loss()
	net.Backward(c)
	return loss, paramTargets(net.Params())
}

func TestAttentionNetGradient(t *testing.T) {
	for _, cfg := range []Config{
		{Dim: 4, Heads: 1, Seed: 1},
		{Dim: 4, Heads: 2, Scale: true, Seed: 2},
		{Dim: 6, Heads: 2, Seed: 3, EmbedStd: 0.5},
		{Dim: 6, Heads: 3, Scale: true, Seed: 4, SingleLayerBlocks: true},
	} {
		net, err := NewAttentionNet(len(tinyCards), tinyRoots, tinyCards, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Perturb the layer norm away from gain 1, bias 0.
		an := net.(*attentionNet)
		randomizeParams(mrf.NewRand(cfg.Seed+100), 0.5, an.ln.bias)
		for i := range an.ln.gain.Value {
			an.ln.gain.Value[i] += 0.3 * float64(i%3-1)
		}
		loss, targets := netLossAndGrad(t, net, cfg.Seed+200)
		t.Logf("%+v: %d parameters", cfg, NumParams(net.Params()))
		checkGradients(t, loss, targets...)
	}
}

func TestAttentionNetShapes(t *testing.T) {
	net, err := NewAttentionNet(len(tinyCards), tinyRoots, tinyCards, Config{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	logits := net.Forward()
	if len(logits) != len(tinyRoots) {
		t.Fatalf("%d logit vectors for %d roots", len(logits), len(tinyRoots))
	}
	for r, l := range logits {
		if len(l) != tinySizes[r] {
			t.Errorf("root %v: %d logits, want %d", tinyRoots[r], len(l), tinySizes[r])
		}
	}
	// One output layer per shape: 2x4, 4x16, 2x6.
	outs := map[string]int{}
	for _, p := range net.Params() {
		if strings.HasSuffix(p.Name, ".out.w") {
			outs[p.Name] = len(p.Value)
		}
	}
	want := map[string]int{"head2x4.out.w": 2 * 4 * 4, "head4x16.out.w": 4 * 4 * 16, "head2x6.out.w": 2 * 4 * 6}
	if len(outs) != len(want) {
		t.Fatalf("output layers %v, want %v", outs, want)
	}
	for name, n := range want {
		if outs[name] != n {
			t.Errorf("%s has %d weights, want %d", name, outs[name], n)
		}
	}
}

func TestAttentionNetSharedHeads(t *testing.T) {
	for _, name := range []string{"head2x4.block1.lin1.w", "head2x4.out.w"} {
		net, err := NewAttentionNet(len(tinyCards), tinyRoots, tinyCards, Config{Dim: 4, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		before := copyLogits(net.Forward())
		var w *Param
		for _, p := range net.Params() {
			if p.Name == name {
				w = p
			}
		}
		if w == nil {
			t.Fatalf("no parameter %s", name)
		}
		// A random perturbation: a uniform one can vanish, since rows of the
		// layer norm's output sum to zero at initialisation.
		rng := mrf.NewRand(10)
		for i := range w.Value {
			w.Value[i] += 0.5 * rng.NormFloat64()
		}
		after := net.Forward()
		for r := range tinyRoots {
			changed := false
			for i := range after[r] {
				if math.Abs(after[r][i]-before[r][i]) > 1e-9 {
					changed = true
				}
			}
			wantChange := tinySizes[r] == 4 // the three 2-variable binary roots
			if changed != wantChange {
				t.Errorf("%s perturbed: root %v logits changed = %v, want %v", name, tinyRoots[r], changed, wantChange)
			}
		}
	}
}

func TestAttentionNetDeterministic(t *testing.T) {
	mk := func(seed int64) [][]float64 {
		net, err := NewAttentionNet(len(tinyCards), tinyRoots, tinyCards, Config{Dim: 6, Heads: 2, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return copyLogits(net.Forward())
	}
	a, b, c := mk(11), mk(11), mk(12)
	same := func(x, y [][]float64) bool {
		for r := range x {
			if !equalSlices(x[r], y[r]) {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("same seed gave different logits")
	}
	if same(a, c) {
		t.Error("different seeds gave the same logits")
	}
}

func TestAttentionNetConfig(t *testing.T) {
	for _, c := range []struct {
		name    string
		numVars int
		roots   [][]int
		cards   []int
		cfg     Config
		err     string
	}{
		{"negative dim", 5, tinyRoots, tinyCards, Config{Dim: -1}, "negative"},
		{"negative heads", 5, tinyRoots, tinyCards, Config{Heads: -2}, "negative"},
		{"heads do not divide", 5, tinyRoots, tinyCards, Config{Dim: 6, Heads: 4}, "divisible"},
		{"bad embed std", 5, tinyRoots, tinyCards, Config{EmbedStd: math.NaN()}, "standard deviation"},
		{"no variables", 0, tinyRoots, nil, Config{}, "no variables"},
		{"cards mismatch", 4, tinyRoots, tinyCards, Config{}, "cardinalities"},
		{"no roots", 5, nil, tinyCards, Config{}, "no root"},
		{"empty root", 5, [][]int{{0}, {}}, tinyCards, Config{}, "no variables"},
		{"out of range", 5, [][]int{{0, 5}}, tinyCards, Config{}, "out of range"},
		{"negative var", 5, [][]int{{-1}}, tinyCards, Config{}, "out of range"},
		{"repeated", 5, [][]int{{1, 1}}, tinyCards, Config{}, "repeated"},
		{"zero card", 2, [][]int{{0, 1}}, []int{2, 0}, Config{}, "cardinality"},
		{"too many variables", 1<<13 + 1, [][]int{{0}}, make([]int, 1<<13+1), Config{Dim: 4}, "attention weights"},
		{"too many states", 17, [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
			[]int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, Config{}, "joint states"},
	} {
		_, err := NewAttentionNet(c.numVars, c.roots, c.cards, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.err)
		}
	}
	// The zero Config is valid: DefaultDim, one head.
	net, err := NewAttentionNet(len(tinyCards), tinyRoots, tinyCards, Config{})
	if err != nil {
		t.Fatal(err)
	}
	an := net.(*attentionNet)
	if an.attn.d != DefaultDim || an.attn.heads != 1 || an.attn.scale != 1 {
		t.Errorf("zero Config gave d=%d heads=%d scale=%v", an.attn.d, an.attn.heads, an.attn.scale)
	}
	if len(an.groups[0].blocks[0].layers) != 2 {
		t.Errorf("zero Config blocks have %d layers, want the paper's 2", len(an.groups[0].blocks[0].layers))
	}
}

func TestBackwardMisuse(t *testing.T) {
	net, err := NewAttentionNet(len(tinyCards), tinyRoots, tinyCards, Config{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	good := make([][]float64, len(tinySizes))
	for r, n := range tinySizes {
		good[r] = make([]float64, n)
	}
	if !panics(func() { net.Backward(good) }) {
		t.Error("Backward before Forward did not panic")
	}
	net.Forward()
	if !panics(func() { net.Backward(good[1:]) }) {
		t.Error("Backward with too few roots did not panic")
	}
	bad := copyLogits(good)
	bad[2] = bad[2][:3]
	if !panics(func() { net.Backward(bad) }) {
		t.Error("Backward with a short gradient did not panic")
	}
}

func TestSnapshotRestore(t *testing.T) {
	net, err := NewAttentionNet(len(tinyCards), tinyRoots, tinyCards, Config{Dim: 4, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	want := copyLogits(net.Forward())
	w := Snapshot(net.Params())
	if len(w) != NumParams(net.Params()) {
		t.Fatalf("snapshot has %d values, want %d", len(w), NumParams(net.Params()))
	}
	randomizeParams(mrf.NewRand(7), 1, net.Params()...)
	if err := Restore(net.Params(), w); err != nil {
		t.Fatal(err)
	}
	for r, l := range net.Forward() {
		if !equalSlices(l, want[r]) {
			t.Fatalf("root %d: restored logits %v, want %v", r, l, want[r])
		}
	}
	if err := Restore(net.Params(), w[1:]); err == nil {
		t.Error("Restore accepted a snapshot of the wrong length")
	}
}

// TestAttentionNetLearns fits given root distributions by minimising the
// cross-entropy with Adam: the network must be able to move its beliefs.
func TestAttentionNetLearns(t *testing.T) {
	net, err := NewAttentionNet(len(tinyCards), tinyRoots, tinyCards, Config{Dim: 8, Heads: 2, Scale: true, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	rng := mrf.NewRand(9)
	target := make([][]float64, len(tinySizes))
	p := make([][]float64, len(tinySizes))
	d := make([][]float64, len(tinySizes))
	for r, n := range tinySizes {
		target[r], p[r], d[r] = make([]float64, n), make([]float64, n), make([]float64, n)
		fillNormal(rng, target[r])
		Softmax(target[r], target[r])
	}
	// KL(target || p) and its gradient p - target with respect to the logits.
	kl := func() float64 {
		s := 0.0
		for r, l := range net.Forward() {
			Softmax(l, p[r])
			for i, q := range target[r] {
				s += q * math.Log(q/p[r][i])
				d[r][i] = p[r][i] - q
			}
		}
		return s
	}
	adam := NewAdam(net.Params(), 1e-2)
	first := kl()
	last := first
	for range 300 {
		net.ZeroGrad()
		net.Backward(d)
		adam.Step()
		last = kl()
	}
	t.Logf("KL %.4g -> %.4g", first, last)
	if last > first/100 {
		t.Errorf("KL went from %v to %v in 300 steps, want a hundredfold drop", first, last)
	}
}

func copyLogits(l [][]float64) [][]float64 {
	c := make([][]float64, len(l))
	for r := range l {
		c[r] = append([]float64(nil), l[r]...)
	}
	return c
}
