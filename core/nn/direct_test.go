package nn

import (
	"strings"
	"testing"
)

func TestDirectNetGradient(t *testing.T) {
	net, err := NewDirectNet(tinyRoots, tinyCards, 3)
	if err != nil {
		t.Fatal(err)
	}
	for r, l := range net.Forward() {
		if len(l) != tinySizes[r] {
			t.Errorf("root %v: %d logits, want %d", tinyRoots[r], len(l), tinySizes[r])
		}
	}
	if got, want := NumParams(net.Params()), 4+4+16+6+4; got != want {
		t.Errorf("%d parameters, want one per joint state, %d", got, want)
	}
	loss, targets := netLossAndGrad(t, net, 4)
	checkGradients(t, loss, targets...)
}

func TestDirectNetForwardCopies(t *testing.T) {
	net, err := NewDirectNet(tinyRoots, tinyCards, 3)
	if err != nil {
		t.Fatal(err)
	}
	l := net.Forward()
	want := l[0][0]
	l[0][0] = 99
	if got := net.Forward()[0][0]; got != want {
		t.Fatalf("writing to the returned logits changed the parameters: %v, want %v", got, want)
	}
}

func TestDirectNetDeterministic(t *testing.T) {
	a, _ := NewDirectNet(tinyRoots, tinyCards, 5)
	b, _ := NewDirectNet(tinyRoots, tinyCards, 5)
	c, _ := NewDirectNet(tinyRoots, tinyCards, 6)
	wa, wb, wc := Snapshot(a.Params()), Snapshot(b.Params()), Snapshot(c.Params())
	if !equalSlices(wa, wb) {
		t.Error("same seed gave different logits")
	}
	if equalSlices(wa, wc) {
		t.Error("different seeds gave the same logits")
	}
}

func TestDirectNetErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		roots [][]int
		cards []int
		err   string
	}{
		{"no roots", nil, tinyCards, "no root"},
		{"empty root", [][]int{{}}, tinyCards, "no variables"},
		{"out of range", [][]int{{0, 7}}, tinyCards, "out of range"},
		{"repeated", [][]int{{2, 2}}, tinyCards, "repeated"},
		{"zero card", [][]int{{0}}, []int{0}, "cardinality"},
		{"too many states", [][]int{{0, 1, 2, 3}}, []int{1 << 7, 1 << 7, 1 << 7, 1 << 7}, "joint states"},
		{"too many logits", [][]int{{0, 1}, {2, 3}, {0, 3}, {1, 2}, {0, 2}},
			[]int{1 << 12, 1 << 12, 1 << 12, 1 << 12}, "logits in all"},
	} {
		_, err := NewDirectNet(c.roots, c.cards, 1)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.err)
		}
	}
}

func TestDirectNetBackwardShape(t *testing.T) {
	net, err := NewDirectNet(tinyRoots, tinyCards, 3)
	if err != nil {
		t.Fatal(err)
	}
	d := copyLogits(net.Forward())
	d[3] = append(d[3], 0)
	if !panics(func() { net.Backward(d) }) {
		t.Error("Backward with a long gradient did not panic")
	}
}
