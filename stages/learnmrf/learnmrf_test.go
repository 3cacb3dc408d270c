package learnmrf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/renn-go/renn/core/exact"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

// fixture writes two 3x3 grid models and 600/200 samples of each.
func fixture(t *testing.T) (models, samples string) {
	t.Helper()
	dir := t.TempDir()
	models, samples = filepath.Join(dir, "models"), filepath.Join(dir, "samples")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 4}, models); err != nil {
		t.Fatal(err)
	}
	if err := samplemodel.Data(samplemodel.DataParams{Models: models, Train: 600, Test: 200, Seed: 5, MaxTable: exact.DefaultMaxTable}, samples); err != nil {
		t.Fatal(err)
	}
	return models, samples
}

// Gibbs sampling learns without a ln Z: its train NLL is NaN, the exact
// test NLL falls.
func TestGibbsLearns(t *testing.T) {
	models, samples := fixture(t)
	out := filepath.Join(t.TempDir(), "learn")
	p := withParams(func(o *Params) {
		o.Samples, o.Models, o.Method = samples, models, "gibbs"
		o.Epochs, o.Batch, o.LR, o.Tol, o.Seed = 4, 300, 0.1, -1, 3
		o.Set = []string{"sweeps=500"}
	})
	if err := Run(context.Background(), p, out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	curves, _, err := formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	first, last := map[int32]float64{}, map[int32]float64{}
	for _, c := range curves {
		if !math.IsNaN(c.TrainNLL) || math.IsNaN(c.TestNLL) {
			t.Errorf("curve row %+v: want a NaN train NLL and a test NLL", c)
		}
		if c.Iteration == 1 {
			first[c.ModelID] = c.TestNLL
		}
		if c.Iteration == 4 {
			last[c.ModelID] = c.TestNLL
		}
	}
	for id, f := range first {
		if !(last[id] < f) {
			t.Errorf("model %d: test NLL %v after epoch 1, %v after 4", id, f, last[id])
		}
	}
}

func TestRunWritesModelsAndCurves(t *testing.T) {
	models, samples := fixture(t)
	for _, method := range []string{"exact", "bp", "gbp", "trw"} {
		t.Run(method, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "learn")
			var log bytes.Buffer
			p := withParams(func(o *Params) {
				o.Samples = samples
				o.Models = models
				o.Method = method
				o.Epochs = 6
				o.Batch = 200
				o.LR = 0.1
				o.Tol = -1
				o.Seed = 3
			})
			if err := Run(context.Background(), p, out, &log); err != nil {
				t.Fatal(err)
			}
			curves, prov, err := formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
			if err != nil {
				t.Fatal(err)
			}
			if prov.Stage != "learn-mrf" || len(prov.Inputs) != 3 || !strings.Contains(prov.Params, `"method_options":{`) {
				t.Errorf("provenance: stage %q, %d inputs, params %s; want learn-mrf, 3 and the resolved method options", prov.Stage, len(prov.Inputs), prov.Params)
			}
			if len(curves) != 12 {
				t.Fatalf("%d curve rows, want 2 models x 6 epochs", len(curves))
			}
			for _, c := range curves {
				if c.Method != method || c.Iteration < 1 || c.Iteration > 6 || !(c.Seconds >= 0) {
					t.Errorf("bad curve row %+v", c)
				}
				if math.IsNaN(c.TrainNLL) || math.IsNaN(c.TestNLL) {
					t.Errorf("NaN in curve row %+v", c)
				}
			}
			// Learning from a random start lowers the exact test NLL.
			for _, id := range []int32{0, 1} {
				var first, last float64
				for _, c := range curves {
					if c.ModelID == id && c.Iteration == 1 {
						first = c.TestNLL
					}
					if c.ModelID == id && c.Iteration == 6 {
						last = c.TestNLL
					}
				}
				if !(last < first) {
					t.Errorf("model %d: test NLL went from %v to %v", id, first, last)
				}
			}
			learned, _, err := stageio.LoadModels(out)
			if err != nil {
				t.Fatal(err)
			}
			truth, _, _ := stageio.LoadModels(models)
			if len(learned) != 2 {
				t.Fatalf("%d learned models, want 2", len(learned))
			}
			for k, e := range learned {
				if e.ID != truth[k].ID || e.Info.Graph != "grid" || !strings.Contains(e.Info.Name, "learned-"+method) {
					t.Errorf("learned model %d: id %d info %+v", k, e.ID, e.Info)
				}
				if len(e.Model.Factors) != len(truth[k].Model.Factors) {
					t.Errorf("learned model %d has %d factors, the true one %d", k, len(e.Model.Factors), len(truth[k].Model.Factors))
				}
			}
			if n := strings.Count(log.String(), " epoch "); n != 12 {
				t.Errorf("printed %d epoch lines, want 12:\n%s", n, log.String())
			}
		})
	}
}

// The same inputs and seed give the same files' numbers.
func TestRunDeterministic(t *testing.T) {
	models, samples := fixture(t)
	var runs [2][]formats.CurveRow
	for k := range runs {
		out := filepath.Join(t.TempDir(), "learn")
		p := withParams(func(o *Params) {
			o.Samples = samples
			o.Models = models
			o.Method = "mf"
			o.IDs = []int32{1}
			o.Epochs = 3
			o.Batch = 100
			o.Tol = -1
			o.Seed = 2
		})
		if err := Run(context.Background(), p, out, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		runs[k], _, _ = formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
	}
	if len(runs[0]) != 3 {
		t.Fatalf("%d rows, want 3 (model 1 only)", len(runs[0]))
	}
	for i := range runs[0] {
		a, b := runs[0][i], runs[1][i]
		if a.ModelID != 1 || a.TrainNLL != b.TrainNLL || a.TestNLL != b.TestNLL {
			t.Fatalf("row %d: %+v then %+v", i, a, b)
		}
	}
}

func TestRunBadInputs(t *testing.T) {
	models, samples := fixture(t)
	rows, sprov, err := formats.ReadSamples(filepath.Join(samples, formats.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	// writeSamplesProv writes a modified copy of the samples with
	// provenance prov and returns its directory; writeSamples keeps the
	// original provenance.
	writeSamplesProv := func(prov formats.Provenance, edit func([]formats.SampleRow) []formats.SampleRow) string {
		dir := t.TempDir()
		cp := make([]formats.SampleRow, len(rows))
		copy(cp, rows)
		if err := formats.WriteSamples(filepath.Join(dir, formats.SamplesFile), edit(cp), prov); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	writeSamples := func(edit func([]formats.SampleRow) []formats.SampleRow) string {
		return writeSamplesProv(sprov, edit)
	}
	noTest := writeSamples(func(r []formats.SampleRow) []formats.SampleRow {
		return slices.DeleteFunc(r, func(x formats.SampleRow) bool { return x.ModelID == 1 && x.Split == "test" })
	})
	unknownOrigin := writeSamplesProv(formats.Provenance{Stage: "test"}, func(r []formats.SampleRow) []formats.SampleRow { return r })
	// Other models with the same ids and structure (another seed): their
	// samples fit, and only the provenance tells them apart.
	otherModels := filepath.Join(t.TempDir(), "other")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 99}, otherModels); err != nil {
		t.Fatal(err)
	}
	short := writeSamples(func(r []formats.SampleRow) []formats.SampleRow {
		r[7].X = r[7].X[:5]
		return r
	})
	badState := writeSamples(func(r []formats.SampleRow) []formats.SampleRow {
		r[3].X = append([]int32{2}, r[3].X[1:]...)
		return r
	})
	onlyModel0 := writeSamples(func(r []formats.SampleRow) []formats.SampleRow {
		var out []formats.SampleRow
		for _, x := range r {
			if x.ModelID == 0 {
				out = append(out, x)
			}
		}
		return out
	})
	stranger := writeSamples(func(r []formats.SampleRow) []formats.SampleRow {
		r[0].ModelID = 9
		return r
	})
	badSplit := writeSamples(func(r []formats.SampleRow) []formats.SampleRow {
		r[0].Split = "valid"
		return r
	})
	empty := t.TempDir()
	cases := []struct {
		name string
		p    Params
		want []string
	}{
		{"sample length", withParams(func(o *Params) { o.Samples = short; o.Models = models; o.Method = "exact" }), []string{formats.SamplesFile, "row 7", "5 values", "9 variables"}},
		{"state out of range", withParams(func(o *Params) { o.Samples = badState; o.Models = models; o.Method = "exact" }), []string{formats.SamplesFile, "row 3", "state 2"}},
		{"model without samples", withParams(func(o *Params) { o.Samples = onlyModel0; o.Models = models; o.Method = "exact" }), []string{formats.SamplesFile, "no train samples for model 1"}},
		{"samples of an unknown model", withParams(func(o *Params) { o.Samples = stranger; o.Models = models; o.Method = "exact" }), []string{formats.SamplesFile, "model_id [9]"}},
		{"samples of other models", withParams(func(o *Params) { o.Samples = samples; o.Models = otherModels; o.Method = "exact" }),
			[]string{formats.SamplesFile, "drawn from other models", filepath.Join(filepath.Dir(samples), "models", formats.ModelsFile), "not " + filepath.Join(otherModels, formats.ModelsFile)}},
		{"samples of unknown origin", withParams(func(o *Params) { o.Samples = unknownOrigin; o.Models = models; o.Method = "exact" }),
			[]string{formats.SamplesFile, "records no models.parquet"}},
		{"no test split", withParams(func(o *Params) { o.Samples = noTest; o.Models = models; o.Method = "exact" }),
			[]string{formats.SamplesFile, "no test samples for model 1"}},
		{"unknown split", withParams(func(o *Params) { o.Samples = badSplit; o.Models = models; o.Method = "exact" }), []string{formats.SamplesFile, "valid"}},
		{"missing samples file", withParams(func(o *Params) { o.Samples = empty; o.Models = models; o.Method = "exact" }), []string{formats.SamplesFile}},
		{"missing models", withParams(func(o *Params) { o.Samples = samples; o.Models = empty; o.Method = "exact" }), []string{formats.ModelInfoFile}},
		{"unknown id", withParams(func(o *Params) { o.Samples = samples; o.Models = models; o.Method = "exact"; o.IDs = []int32{4} }), []string{formats.ModelInfoFile, "model_id 4"}},
		{"id twice", withParams(func(o *Params) { o.Samples = samples; o.Models = models; o.Method = "exact"; o.IDs = []int32{1, 1} }), []string{"model id 1 selected twice"}},
		{"unknown method", withParams(func(o *Params) { o.Samples = samples; o.Models = models; o.Method = "trbp" }), []string{"unknown method", "trbp"}},
		{"unknown parameterisation", withParams(func(o *Params) { o.Samples = samples; o.Models = models; o.Method = "exact"; o.Param = "spline" }), []string{"spline"}},
		{"bad learning rate", withParams(func(o *Params) { o.Samples = samples; o.Models = models; o.Method = "exact"; o.LR = -1 }), []string{"learning rate"}},
		{"bad scheme", withParams(func(o *Params) { o.Samples = samples; o.Models = models; o.Method = "gbp"; o.Scheme = "hexagons" }), []string{"hexagons"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			err := Run(context.Background(), c.p, out, &bytes.Buffer{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if _, serr := os.Stat(out); !os.IsNotExist(serr) {
				t.Errorf("a failed run left %s behind", out)
			}
		})
	}
}

// The table parameterisation learns every log-potential entry; the learned
// models keep the true models' factor layout.
func TestRunTableParam(t *testing.T) {
	models, samples := fixture(t)
	out := filepath.Join(t.TempDir(), "learn")
	p := withParams(func(o *Params) {
		o.Samples = samples
		o.Models = models
		o.Method = "exact"
		o.Param = "table"
		o.Epochs = 5
		o.Batch = 100
		o.Tol = -1
		o.Seed = 1
	})
	if err := Run(context.Background(), p, out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	curves, _, err := formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(curves) != 10 || !(curves[4].TestNLL < curves[0].TestNLL) {
		t.Fatalf("%d rows; model 0 test NLL %v -> %v", len(curves), curves[0].TestNLL, curves[4].TestNLL)
	}
	learned, _, _ := stageio.LoadModels(out)
	truth, _, _ := stageio.LoadModels(models)
	for k := range learned {
		for a, f := range learned[k].Model.Factors {
			g := truth[k].Model.Factors[a]
			if !slices.Equal(f.Vars, g.Vars) || len(f.LogTable) != len(g.LogTable) {
				t.Fatalf("model %d factor %d: scope %v, want %v", k, a, f.Vars, g.Vars)
			}
		}
		if !strings.Contains(learned[k].Info.Source, "table") {
			t.Errorf("source %q does not name the parameterisation", learned[k].Info.Source)
		}
	}
}

// withParams returns DefaultParams changed by set.
func withParams(set func(p *Params)) Params {
	p := DefaultParams()
	set(&p)
	return p
}

// --param auto says what it chose, in the log and in the provenance: ising
// for binary pairwise models, table for the others (a UAI model with 3
// states).
func TestRunReportsParameterisation(t *testing.T) {
	ising, isingSamples := fixture(t)
	dir := t.TempDir()
	uai, uaiSamples := filepath.Join(dir, "uai"), filepath.Join(dir, "uai-samples")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, uai); err != nil {
		t.Fatal(err)
	}
	if err := samplemodel.Data(samplemodel.DataParams{Models: uai, Train: 50, Test: 10, Seed: 1, MaxTable: exact.DefaultMaxTable}, uaiSamples); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		models, samples, want string
		ids                   []int32
	}{
		{ising, isingSamples, "ising", []int32{0, 1}},
		{uai, uaiSamples, "table", []int32{0}},
	} {
		out := filepath.Join(t.TempDir(), "learn")
		var log bytes.Buffer
		p := withParams(func(o *Params) {
			o.Samples, o.Models, o.Method, o.Epochs, o.Batch, o.Tol = tc.samples, tc.models, "exact", 1, 50, -1
		})
		if p.Param != "auto" {
			t.Fatalf("default --param %q, want auto", p.Param)
		}
		if err := Run(context.Background(), p, out, &log); err != nil {
			t.Fatal(err)
		}
		_, prov, err := formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Param            string           `json:"param"`
			Parameterisation map[int32]string `json:"parameterisation"`
		}
		if err := json.Unmarshal([]byte(prov.Params), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Param != "auto" || len(rec.Parameterisation) != len(tc.ids) {
			t.Errorf("provenance params %s", prov.Params)
		}
		for _, id := range tc.ids {
			if rec.Parameterisation[id] != tc.want {
				t.Errorf("model %d: provenance parameterisation %q, want %q", id, rec.Parameterisation[id], tc.want)
			}
			line := fmt.Sprintf("model %d exact parameterisation %s (--param auto)\n", id, tc.want)
			if !strings.Contains(log.String(), line) {
				t.Errorf("log lacks %q:\n%s", line, log.String())
			}
		}
	}
}
