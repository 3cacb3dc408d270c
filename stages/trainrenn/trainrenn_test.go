package trainrenn

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/renn-go/renn/core/renn"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/bp"
	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

// fixture writes two 3x3 grid models and their faces region graphs into a
// temporary directory and returns the two directories.
func fixture(t *testing.T) (models, regions string) {
	t.Helper()
	dir := t.TempDir()
	models, regions = filepath.Join(dir, "models"), filepath.Join(dir, "regions")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 3}, models); err != nil {
		t.Fatal(err)
	}
	if err := buildregions.Run(buildregions.Params{Models: models, Scheme: "auto"}, regions, io.Discard); err != nil {
		t.Fatal(err)
	}
	return models, regions
}

func TestRun(t *testing.T) {
	models, regions := fixture(t)
	loaded, _, err := stageio.LoadModels(models)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		p      Params
		method string // written to the files
		bethe  bool   // compare with loopy BP (the same free energy), not exact
	}{
		{"renn from regions", Params{Regions: regions, Method: "renn"}, "renn", false},
		{"renn in-process bethe", Params{Scheme: "bethe", Method: "renn"}, "renn", true},
		{"infnet", Params{Method: "infnet"}, "infnet", true},
		{"direct net", Params{Regions: regions, Method: "renn", Options: opts("renn-direct", func(o *renn.Options) { o.Net = "direct" })}, "renn-direct", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			p.Models = models
			if p.Options.Name == "" {
				p.Options = opts(p.Method, nil)
			}
			out := filepath.Join(t.TempDir(), "out")
			if err := Run(context.Background(), p, out); err != nil {
				t.Fatal(err)
			}
			marg, prov, err := formats.ReadMarginals(filepath.Join(out, formats.MarginalsFile))
			if err != nil {
				t.Fatal(err)
			}
			if prov.Stage != "train-renn" || len(prov.Inputs) == 0 {
				t.Errorf("provenance %+v", prov)
			}
			est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(est) != len(loaded) {
				t.Fatalf("%d estimate rows for %d models", len(est), len(loaded))
			}
			for _, e := range loaded {
				ex, err := reference(e.Model, tc.bethe)
				if err != nil {
					t.Fatal(err)
				}
				rows := 0
				for _, r := range marg {
					if r.ModelID != e.ID {
						continue
					}
					rows++
					if r.Method != tc.method {
						t.Fatalf("method %q, want %q", r.Method, tc.method)
					}
					var want []float64
					switch r.Kind {
					case "var":
						want = ex.Marginals.Vars[r.Index]
					case "factor":
						want = ex.Marginals.Factors[r.Index]
					default:
						t.Fatalf("row kind %q", r.Kind)
					}
					for x, p := range r.Probs {
						if d := math.Abs(p - want[x]); d > 2e-3 {
							t.Errorf("model %d %s %d: p[%d] = %.5f, exact %.5f", e.ID, r.Kind, r.Index, x, p, want[x])
						}
					}
				}
				if want := len(e.Model.Cards) + len(e.Model.Factors); rows != want {
					t.Errorf("model %d: %d marginal rows, want %d", e.ID, rows, want)
				}
			}
			for _, r := range est {
				if r.Method != tc.method || !r.Converged || r.Iterations < 1 || r.LogZ != -r.FreeEnergy || !(r.Seconds > 0) {
					t.Errorf("estimate row %+v", r)
				}
				var params struct {
					Options     map[string]any     `json:"options"`
					Diagnostics map[string]float64 `json:"diagnostics"`
				}
				if err := json.Unmarshal([]byte(r.Params), &params); err != nil {
					t.Fatalf("params %q: %v", r.Params, err)
				}
				if params.Diagnostics["steps"] != float64(r.Iterations) || params.Options["lambda"] != 5.0 {
					t.Errorf("params %s", r.Params)
				}
				if _, ok := params.Diagnostics["penalty"]; !ok {
					t.Errorf("params %s lack the final penalty", r.Params)
				}
			}
		})
	}
}

// reference returns the exact marginals of m, or with bethe those of damped
// loopy BP, whose fixed points are stationary points of the Bethe free
// energy that Inference Net minimises.
func reference(m *mrf.Model, bethe bool) (*infer.Result, error) {
	if !bethe {
		ex, err := exact.Solve(m, exact.DefaultOptions())
		if err != nil {
			return nil, err
		}
		return &infer.Result{Marginals: ex.Marginals}, nil
	}
	b, err := bp.New(bp.DampedOptions())
	if err != nil {
		return nil, err
	}
	res, err := b.Infer(context.Background(), m)
	if err == nil && !res.Converged {
		err = fmt.Errorf("damped BP did not converge")
	}
	return res, err
}

// TestRunIDs runs one model of two, as a pipeline shard over --ids does.
func TestRunIDs(t *testing.T) {
	models, regions := fixture(t)
	out := filepath.Join(t.TempDir(), "out")
	if err := Run(context.Background(), Params{Models: models, Regions: regions, Method: "renn", IDs: []int32{1}, Options: opts("renn", nil)}, out); err != nil {
		t.Fatal(err)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(est) != 1 || est[0].ModelID != 1 {
		t.Fatalf("estimates %+v, want model 1 only", est)
	}
}

func TestRunErrors(t *testing.T) {
	models, regions := fixture(t)
	out := filepath.Join(t.TempDir(), "out")
	mp := opts("renn-family", func(o *renn.Options) { o.Net = "message" })
	for _, tc := range []struct {
		name string
		p    Params
		want string
	}{
		{"unknown method", Params{Models: models, Method: "gbp", Options: opts("renn", nil)}, `unknown method "gbp"`},
		{"infnet with regions", Params{Models: models, Regions: regions, Method: "infnet", Options: opts("infnet", nil)}, "takes no --regions"},
		{"bad option", Params{Models: models, Method: "renn", Options: opts("renn", func(o *renn.Options) { o.Lambda = -1 })}, "lambda"},
		{"zero options", Params{Models: models, Method: "renn"}, "name"},
		{"bad scheme", Params{Models: models, Method: "renn", Scheme: "hexagons", Options: opts("renn", nil)}, "hexagons"},
		{"no models", Params{Models: t.TempDir(), Method: "renn", Options: opts("renn", nil)}, formats.ModelInfoFile},
		{"no regions", Params{Models: models, Regions: models, Method: "renn", Options: opts("renn", nil)}, formats.RegionsFile},
		{"unknown id", Params{Models: models, Regions: regions, Method: "renn", IDs: []int32{7}, Options: opts("renn", nil)}, "no model with model_id 7"},
		{"refine-by without weights", Params{Models: models, Method: "renn-mp", RefineBy: renn.RefineGBP, Options: mp}, "refine-by: gbp without --weights"},
		{"unknown refine-by", Params{Models: models, Method: "renn-mp", Weights: models, Refine: -1, RefineBy: "newton", Options: mp}, `refine-by: "newton"`},
		{"no refine-by", Params{Models: models, Method: "renn-mp", Weights: models, Refine: 5, Options: mp}, `refine-by: ""`},
		{"refine-by with refine 0", Params{Models: models, Method: "renn-mp", Weights: models, RefineBy: renn.RefineGradient, Options: mp}, "--refine 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Run(context.Background(), tc.p, out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("failed runs left %s behind (stat: %v)", out, err)
	}
}

// opts returns renn's defaults under name, changed by set.
func opts(name string, set func(o *renn.Options)) renn.Options {
	o := renn.DefaultOptions()
	o.Name = name
	if set != nil {
		set(&o)
	}
	return o
}

// --max-seconds applies per model: each run stops at its own budget and is
// written, not converged, with the time_limit diagnostic. renn-mp's message
// passing is inside the budget, and here takes all of it: no step is left.
func TestRunTimeBudget(t *testing.T) {
	models, regions := fixture(t)
	clock := time.Unix(0, 0)
	ctx := infer.WithClock(context.Background(), func() time.Time {
		clock = clock.Add(time.Second) // a second a read: 2.5 s is a few steps
		return clock
	})
	for _, method := range []string{"renn", "renn-mp"} {
		o, err := MethodDefaults(method)
		if err != nil {
			t.Fatal(err)
		}
		o.MaxSeconds = 2.5
		out := filepath.Join(t.TempDir(), "out")
		if err := Run(ctx, Params{Models: models, Regions: regions, Method: method, Options: o}, out); err != nil {
			t.Fatal(err)
		}
		est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(est) != 2 {
			t.Fatalf("%s: %d estimate rows, want 2", method, len(est))
		}
		for _, r := range est {
			var params struct {
				Options     map[string]any     `json:"options"`
				Diagnostics map[string]float64 `json:"diagnostics"`
			}
			if err := json.Unmarshal([]byte(r.Params), &params); err != nil {
				t.Fatal(err)
			}
			least := int32(1)
			if method == "renn-mp" {
				least = 0
			}
			if r.Converged || r.Iterations < least || r.Iterations > 3 || params.Diagnostics["time_limit"] != 1 || params.Options["max_seconds"] != 2.5 {
				t.Errorf("%s model %d: converged %v after %d steps, params %s", method, r.ModelID, r.Converged, r.Iterations, r.Params)
			}
		}
	}
}

// A progress line shows the step against the cap and, with a time budget,
// the seconds against it.
func TestProgressLine(t *testing.T) {
	o := opts("renn", nil)
	o.MaxSteps = 5000
	line := func(o renn.Options) string { return fmt.Sprint(progress(3, o, 120, 1.5, 12.34)) }
	if got, want := line(o), "[model 3 method renn step 120/5000 loss 1.5 seconds 12.340]"; got != want {
		t.Errorf("progress %s, want %s", got, want)
	}
	o.MaxSeconds = 30
	if got, want := line(o), "[model 3 method renn step 120/5000 loss 1.5 seconds 12.3/30]"; got != want {
		t.Errorf("progress %s, want %s", got, want)
	}
}
