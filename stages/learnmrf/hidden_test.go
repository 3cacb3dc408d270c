package learnmrf

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

// hiddenFixture writes a 5x3 RBM (right side hidden) and a 3x3 grid with
// its centre hidden, with visible-only samples, and a full-sample data set
// of the same models drawn before hiding.
func hiddenFixture(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(samplemodel.Ising(samplemodel.IsingParams{Graph: "bipartite", Left: 5, Right: 3, Gamma: 0.5, Couplings: "normal:0.7", Count: 1, Seed: 4, Hide: "right"}, filepath.Join(dir, "rbm")))
	must(samplemodel.Data(samplemodel.DataParams{Models: filepath.Join(dir, "rbm"), Train: 400, Test: 200, Seed: 5, MaxTable: exact.DefaultMaxTable}, filepath.Join(dir, "rbm-data")))
	must(samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 0.5, Count: 1, Seed: 4, Hide: "interior"}, filepath.Join(dir, "grid")))
	must(samplemodel.Data(samplemodel.DataParams{Models: filepath.Join(dir, "grid"), Train: 400, Test: 200, Seed: 5, MaxTable: exact.DefaultMaxTable}, filepath.Join(dir, "grid-data")))
	return dir
}

func TestRunHidden(t *testing.T) {
	dir := hiddenFixture(t)
	for _, tt := range []struct{ models, method string }{
		{"rbm", "exact"}, {"rbm", "bp"}, {"rbm", "mf"}, {"grid", "exact"}, {"grid", "gbp"},
	} {
		t.Run(tt.models+"/"+tt.method, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "learn")
			var log bytes.Buffer
			p := withParams(func(o *Params) {
				o.Samples = filepath.Join(dir, tt.models+"-data")
				o.Models = filepath.Join(dir, tt.models)
				o.Method = tt.method
				o.Epochs, o.Batch, o.LR, o.Tol, o.Seed = 8, 100, 0.1, -1, 3
			})
			curves, _ := runCurves(t, p, out, &log)
			first, last := curves[0].TestNLL, curves[len(curves)-1].TestNLL
			if !(last < first) || math.IsNaN(last) {
				t.Errorf("test NLL %v -> %v, want a decrease", first, last)
			}
			ms, _, err := stageio.LoadModels(out)
			if err != nil {
				t.Fatal(err)
			}
			orig, _, _ := stageio.LoadModels(p.Models)
			if !slices.Equal(ms[0].Info.Hidden, orig[0].Info.Hidden) {
				t.Errorf("learned model hidden %v, want %v", ms[0].Info.Hidden, orig[0].Info.Hidden)
			}
			if !strings.Contains(log.String(), "clamped_calls") {
				t.Errorf("log has no clamped-phase counts:\n%s", log.String())
			}
		})
	}
}

// TestRunHiddenMismatch checks that visible-only samples of a model without
// hidden variables, and full samples of one with hidden variables, are
// errors naming the samples file.
func TestRunHiddenMismatch(t *testing.T) {
	dir := hiddenFixture(t)
	// The same RBM without hidden variables, and full samples of it.
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "bipartite", Left: 5, Right: 3, Gamma: 0.5, Couplings: "normal:0.7", Count: 1, Seed: 4}, filepath.Join(dir, "full")); err != nil {
		t.Fatal(err)
	}
	if err := samplemodel.Data(samplemodel.DataParams{Models: filepath.Join(dir, "full"), Train: 50, Test: 20, Seed: 5, MaxTable: exact.DefaultMaxTable}, filepath.Join(dir, "full-data")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ models, samples, want string }{
		{"full", "rbm-data", "none hidden"},
		{"rbm", "full-data", "visible values"},
	} {
		p := withParams(func(o *Params) {
			o.Samples, o.Models, o.Epochs = filepath.Join(dir, tt.samples), filepath.Join(dir, tt.models), 1
		})
		err := loadCheck(p)
		if err == nil || !strings.Contains(err.Error(), formats.SamplesFile) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s with %s: error %v, want one naming %s and containing %q", tt.models, tt.samples, err, formats.SamplesFile, tt.want)
		}
	}
}

// loadCheck reads p's models and samples as Run does, without the
// provenance check (the mismatched pairs come from different directories).
func loadCheck(p Params) error {
	models, _, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	spath := filepath.Join(p.Samples, formats.SamplesFile)
	rows, _, err := formats.ReadSamples(spath)
	if err != nil {
		return err
	}
	_, err = sampleSets(spath, rows, models)
	return err
}

// TestRunHiddenClampedExact checks ClampedExact: the clamped phase is the
// exact, factorised one (one iteration per visible vector) whatever the
// learning method, learning still lowers the test NLL, and exact learning
// is unchanged by it.
func TestRunHiddenClampedExact(t *testing.T) {
	dir := hiddenFixture(t)
	run := func(t *testing.T, method string, clampedExact bool) ([]formats.CurveRow, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "learn")
		var log bytes.Buffer
		p := withParams(func(o *Params) {
			o.Samples, o.Models = filepath.Join(dir, "rbm-data"), filepath.Join(dir, "rbm")
			o.Method, o.ClampedExact = method, clampedExact
			o.Epochs, o.Batch, o.LR, o.Tol, o.Seed = 6, 100, 0.1, -1, 3
		})
		curves, _ := runCurves(t, p, out, &log)
		return curves, log.String()
	}
	for _, method := range []string{"bp", "renn-mp"} {
		t.Run(method, func(t *testing.T) {
			curves, log := run(t, method, true)
			if !strings.Contains(log, "by exact") {
				t.Errorf("log does not name the exact clamped phase:\n%s", log)
			}
			for _, line := range strings.Split(log, "\n") {
				var calls, iters int
				if i := strings.Index(line, "clamped_calls "); i >= 0 {
					if _, err := fmt.Sscanf(line[i:], "clamped_calls %d clamped_iterations %d", &calls, &iters); err != nil || calls != iters {
						t.Errorf("line %q: want one iteration per clamped call (factorised)", line)
					}
				}
			}
			first, last := curves[0].TestNLL, curves[len(curves)-1].TestNLL
			if !(last < first) {
				t.Errorf("test NLL %v -> %v, want a decrease", first, last)
			}
			if want := method + ClampedExactSuffix; curves[0].Method != want {
				t.Errorf("curves name the method %q, want %q", curves[0].Method, want)
			}
		})
	}
	t.Run("exact unchanged", func(t *testing.T) {
		a, _ := run(t, "exact", false)
		b, _ := run(t, "exact", true)
		for i := range a {
			if a[i].TestNLL != b[i].TestNLL || a[i].TrainNLL != b[i].TrainNLL {
				t.Errorf("epoch %d: NLL %v/%v with clamped-exact, %v/%v without", i+1, b[i].TrainNLL, b[i].TestNLL, a[i].TrainNLL, a[i].TestNLL)
			}
		}
	})
	t.Run("with per-sample", func(t *testing.T) {
		p := withParams(func(o *Params) { o.Method, o.ClampedExact, o.ClampedPerSample = "bp", true, true })
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), "clamped-exact") {
			t.Errorf("Check: %v, want an error naming clamped-exact", err)
		}
	})
}
