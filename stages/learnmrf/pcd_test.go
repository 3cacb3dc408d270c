package learnmrf

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
)

// pcd learns complete data (the clamped phase is the data), an RBM (the
// clamped phase exact and factorised) and a grid whose hidden variables
// touch (the clamped phase sampled): the exact test NLL falls to near
// exact learning's, the train NLL is NaN (no ln Z), and a second run gives
// the same curves.
func TestPCDLearns(t *testing.T) {
	dir := hiddenFixture(t)
	full, fullSamples := fixture(t)
	grid := filepath.Join(dir, "grid4")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 4, Gamma: 0.5, Count: 1, Seed: 6, Hide: "interior"}, grid); err != nil {
		t.Fatal(err)
	}
	if err := samplemodel.Data(samplemodel.DataParams{Models: grid, Train: 400, Test: 200, Seed: 7, MaxTable: exact.DefaultMaxTable}, grid+"-data"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, models, samples, clamped string
		gap                            float64
	}{
		{"complete", full, fullSamples, "", 0.05},
		{"rbm", filepath.Join(dir, "rbm"), filepath.Join(dir, "rbm-data"), "clamped_unconverged 0", 0.05},
		{"grid4", grid, grid + "-data", "clamped_unconverged", 0.1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := func(method string) ([]formats.CurveRow, string) {
				out := filepath.Join(t.TempDir(), "learn")
				var log bytes.Buffer
				p := withParams(func(o *Params) {
					o.Samples, o.Models, o.Method = tt.samples, tt.models, method
					o.Epochs, o.Batch, o.LR, o.Tol, o.Seed = 12, 100, 0.05, -1, 3
					if method == "pcd" {
						o.Set = []string{"chains=100", "sweeps=20"}
					}
				})
				curves, _ := runCurves(t, p, out, &log)
				return curves, log.String()
			}
			a, log := run("pcd")
			b, _ := run("pcd")
			ex, _ := run("exact")
			if tt.clamped != "" && !strings.Contains(log, tt.clamped) {
				t.Errorf("log has no %q:\n%s", tt.clamped, log)
			}
			var gap float64
			for k := range a {
				if !math.IsNaN(a[k].TrainNLL) || a[k].TestNLL != b[k].TestNLL {
					t.Fatalf("row %d: train NLL %v (want NaN), test NLL %v then %v (want equal)", k, a[k].TrainNLL, a[k].TestNLL, b[k].TestNLL)
				}
				if a[k].Iteration == 12 {
					gap = max(gap, a[k].TestNLL-ex[k].TestNLL)
				}
			}
			if !(a[len(a)-1].TestNLL < a[0].TestNLL) {
				t.Errorf("test NLL %v -> %v, want a decrease", a[0].TestNLL, a[len(a)-1].TestNLL)
			}
			if gap > tt.gap {
				t.Errorf("test NLL gap to exact learning %.4f, want <= %v", gap, tt.gap)
			}
		})
	}
}

// pcd's options are checked before any file is read, naming the option.
func TestPCDOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		set  []string
		want string
	}{
		{[]string{"chains=0"}, "chains"},
		{[]string{"sweeps=0"}, "sweeps"},
		{[]string{"sweeps=-2"}, "sweeps"},
		{[]string{"max_seconds=-1"}, "max_seconds"},
		{[]string{"chains=x"}, "chains"},
		{[]string{"lambda=1"}, "lambda"},
	} {
		p := withParams(func(o *Params) { o.Method, o.Set = "pcd", tc.set })
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.set, err, tc.want)
		}
	}
	p := withParams(func(o *Params) { o.Method, o.Set = "pcd", []string{"chains=7", "sweeps=2", "seed=0"} })
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
}
