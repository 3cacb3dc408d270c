package renn

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/nn"
	"github.com/renn-go/renn/core/region"
)

// shifted returns m with every log table moved by d times a fixed pattern:
// the next model of a learning run.
func shifted(m *mrf.Model, d float64) *mrf.Model {
	c := m.Clone()
	for a, f := range c.Factors {
		for x := range f.LogTable {
			f.LogTable[x] += d * float64((3*a+x)%5-2)
		}
	}
	return c
}

// With FamilyReadStart the warm calls continue the message passing from the
// previous call's messages: called again and again on one model, the net's
// feature reaches GBP's fixed point. With FamilyReadEvery every call reads
// the model afresh, so the feature stays at the family's few sweeps from
// uniform messages. In every mode a warm call on the next model of a
// learning run refines to the answer of a fresh run there.
func TestFamilyRead(t *testing.T) {
	m := grid(t, 4, 1, 3)
	g := build(t, m, "grid", "faces")
	net, err := NewFamilyNet(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	f := &Family{Net: net, Sweeps: 3}
	gb, err := gbp.New(g, gbp.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res, err := gb.Infer(context.Background(), m); err != nil || !res.Converged() {
		t.Fatalf("gbp: %v", err)
	}
	next := shifted(m, 0.2)
	ref := mustInfer(t, mustNew(t, g, opt(func(o *Options) { o.Net = "message" })), next)
	for _, mode := range []string{"", FamilyReadStart, FamilyReadEvery} {
		o := LearningOptions()
		o.Net, o.WarmSteps = "message", 2000
		r, err := NewWithFamily(g, o, f, false)
		if err != nil {
			t.Fatal(err)
		}
		if mode != "" {
			if err := r.SetFamilyRead(mode); err != nil {
				t.Fatal(err)
			}
		}
		mustInfer(t, r, m)
		first := cloneFeatures(r.net.(*nn.MessageNet).Features())
		for range 20 {
			mustInfer(t, r, m)
		}
		E, err := r.rb.Energies(m)
		if err != nil {
			t.Fatal(err)
		}
		fixed := r.logMessages(gb.Beliefs(), E)
		got := r.net.(*nn.MessageNet).Features()
		dFixed, dFirst := maxDiff(got[0], fixed), maxDiff(got[0], first[0])
		if mode == FamilyReadEvery {
			if dFirst != 0 || dFixed < 1e-3 {
				t.Errorf("mode %q: feature %.2g from the first call's, %.2g from GBP's fixed point; want 0 and > 1e-3", mode, dFirst, dFixed)
			}
		} else if dFixed > 1e-6 {
			t.Errorf("mode %q: feature %.2g from GBP's fixed point after 21 calls", mode, dFixed)
		}
		res := mustInfer(t, r, next)
		if !res.Converged() {
			t.Errorf("mode %q: warm call did not converge in %d steps", mode, res.Iterations)
		}
		if d := meanAbsDiff(res.Marginals.Vars, ref.Marginals.Vars); d > 1e-3 {
			t.Errorf("mode %q: mean |ΔP| %.2g from a fresh run on the new model", mode, d)
		}
	}
}

func maxDiff(a, b [][]float64) float64 {
	d := 0.0
	for i := range a {
		for j := range a[i] {
			d = math.Max(d, math.Abs(a[i][j]-b[i][j]))
		}
	}
	return d
}

func cloneFeatures(f [][][]float64) [][][]float64 {
	out := make([][][]float64, len(f))
	for k, t := range f {
		for _, row := range t {
			out[k] = append(out[k], slices.Clone(row))
		}
	}
	return out
}

func mustNew(t *testing.T, g *region.Graph, o Options) *RENN {
	t.Helper()
	r, err := New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// SetFamilyRead rejects an unknown mode and RENN without a family network.
func TestSetFamilyReadRejects(t *testing.T) {
	m := grid(t, 3, 1, 1)
	g := build(t, m, "grid", "faces")
	net, err := NewFamilyNet(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	o := LearningOptions()
	o.Net = "message"
	r, err := NewWithFamily(g, o, &Family{Net: net, Sweeps: 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetFamilyRead("always"); err == nil || !strings.Contains(err.Error(), `"always"`) {
		t.Errorf("unknown mode: %v", err)
	}
	if err := mustNew(t, g, o).SetFamilyRead(FamilyReadStart); err == nil || !strings.Contains(err.Error(), "family network") {
		t.Errorf("no family: %v", err)
	}
}
