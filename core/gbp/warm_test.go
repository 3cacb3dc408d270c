package gbp_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/gbp"
	"github.com/renn-go/renn/core/mrf"
)

// InferFrom reaches the fixed point of a cold run from perturbed
// messages: the same marginals and ln Z within 1e-6, converged. From the
// cold run's own messages it stops within two sweeps.
func TestInferFromSameFixedPoint(t *testing.T) {
	tests := []struct {
		name          string
		m             *mrf.Model
		graph, scheme string
	}{
		{"4x4 faces gamma 1", grid(t, 4, 1, 3), "grid", "faces"},
		{"5x5 faces gamma 0.5", grid(t, 5, 0.5, 8), "grid", "faces"},
		{"4x4 bethe", grid(t, 4, 1, 5), "grid", "bethe"},
		{"4x4 faces with evidence", observeLikely(t, grid(t, 4, 1, 9), 5), "grid", "faces"},
		{"3x3 faces+outer", grid(t, 3, 0.5, 2), "grid", "faces+outer"},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := build(t, tc.m, tc.graph, tc.scheme)
			cold := mustNew(t, g, gbp.DefaultOptions())
			want, err := cold.Infer(ctx, tc.m)
			if err != nil || !want.Converged() {
				t.Fatalf("cold run: %v, converged %v", err, want != nil && want.Converged())
			}
			fixed := cold.EdgeMessages()
			rng := mrf.NewRand(1)
			for _, scale := range []float64{0, 0.5} {
				msgs := make([]gbp.EdgeMessage, len(fixed))
				for k, f := range fixed {
					msgs[len(fixed)-1-k] = gbp.EdgeMessage{Parent: f.Parent, Child: f.Child, Log: append([]float64(nil), f.Log...)}
					for y := range f.Log {
						msgs[len(fixed)-1-k].Log[y] += scale * rng.NormFloat64()
					}
				}
				warm := mustNew(t, g, gbp.DefaultOptions())
				got, err := warm.InferFrom(ctx, tc.m, msgs)
				if err != nil {
					t.Fatal(err)
				}
				if !got.Converged() {
					t.Fatalf("scale %v: not converged after %d sweeps", scale, got.Iterations)
				}
				if scale == 0 && got.Iterations > 2 {
					t.Errorf("from the fixed point: %d sweeps, want at most 2", got.Iterations)
				}
				if d := math.Abs(got.LogZ - want.LogZ); d > 1e-6 {
					t.Errorf("scale %v: ln Z %v, cold %v", scale, got.LogZ, want.LogZ)
				}
				for i, p := range got.Marginals.Vars {
					for x := range p {
						if d := math.Abs(p[x] - want.Marginals.Vars[i][x]); d > 1e-6 {
							t.Fatalf("scale %v: variable %d state %d: %v, cold %v", scale, i, x, p[x], want.Marginals.Vars[i][x])
						}
					}
				}
			}
		})
	}
}

// InferFrom rejects messages that do not fit, naming the problem.
func TestInferFromBadMessages(t *testing.T) {
	m := grid(t, 3, 1, 1)
	g := build(t, m, "grid", "faces")
	ctx := context.Background()
	method := mustNew(t, g, gbp.DefaultOptions())
	if _, err := method.Infer(ctx, m); err != nil {
		t.Fatal(err)
	}
	good := method.EdgeMessages()
	mutate := func(f func([]gbp.EdgeMessage) []gbp.EdgeMessage) []gbp.EdgeMessage {
		c := make([]gbp.EdgeMessage, len(good))
		for k, e := range good {
			c[k] = gbp.EdgeMessage{Parent: e.Parent, Child: e.Child, Log: append([]float64(nil), e.Log...)}
		}
		return f(c)
	}
	tests := []struct {
		name string
		msgs []gbp.EdgeMessage
		want string
	}{
		{"missing", good[1:], "not every edge has"},
		{"twice", append(good[:len(good):len(good)], good[0]), "two messages"},
		{"not an edge", mutate(func(c []gbp.EdgeMessage) []gbp.EdgeMessage { c[0].Parent = c[0].Child; return c }), "not an edge of the region graph"},
		{"short", mutate(func(c []gbp.EdgeMessage) []gbp.EdgeMessage { c[0].Log = c[0].Log[1:]; return c }), "entries"},
		{"NaN", mutate(func(c []gbp.EdgeMessage) []gbp.EdgeMessage { c[0].Log[0] = math.NaN(); return c }), "NaN"},
		{"zero", mutate(func(c []gbp.EdgeMessage) []gbp.EdgeMessage {
			for y := range c[0].Log {
				c[0].Log[y] = math.Inf(-1)
			}
			return c
		}), "zero everywhere"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := method.InferFrom(ctx, m, tc.msgs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Sweep(k) then Sweep(1) leaves the beliefs Infer has after k+1 sweeps,
// to the bit: the same updates in the same order.
func TestSweepMatchesInfer(t *testing.T) {
	m := grid(t, 5, 1, 4)
	g := build(t, m, "grid", "faces")
	ctx := context.Background()
	o := gbp.DefaultOptions()
	o.MaxIter = 4
	ref := mustNew(t, g, o)
	if _, err := ref.Infer(ctx, m); err != nil {
		t.Fatal(err)
	}
	sw := mustNew(t, g, gbp.DefaultOptions())
	if err := sw.Sweep(ctx, m, 3); err != nil {
		t.Fatal(err)
	}
	if err := sw.Sweep(ctx, m, 1); err != nil {
		t.Fatal(err)
	}
	want, got := ref.Beliefs(), sw.Beliefs()
	for r := range want {
		for x := range want[r] {
			if got[r][x] != want[r][x] {
				t.Fatalf("region %d state %d: %v, Infer %v", r, x, got[r][x], want[r][x])
			}
		}
	}
	if err := sw.Sweep(ctx, m, 0); err == nil {
		t.Error("0 sweeps accepted")
	}
}
