package outputs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
)

// A learn-mrf instance's runs come out in the order they first appear,
// each in epoch order whatever the file's row order, with its seed, last
// test NLL and mean seconds per epoch; the true model's test NLL is the
// mean of -log p over the test split alone.
func TestReadLearning(t *testing.T) {
	dir := t.TempDir()
	models := &Instance{ID: "models", Stage: "models", OutDir: filepath.Join(dir, "models")}
	samples := &Instance{ID: "samples", Stage: "samples", OutDir: filepath.Join(dir, "samples")}
	learn := &Instance{ID: "learn/seed=7", Stage: "learn", OutDir: filepath.Join(dir, "learn"), Binary: "learn-mrf",
		Shard: map[string]string{"seed": "7"}, Inputs: map[string][]*Instance{"models": {models}, "samples": {samples}}}
	infos := []formats.ModelInfoRow{{ModelID: 0, Name: "grid-0", Cards: []int32{2}, Graph: "grid"}, {ModelID: 1, Name: "grid-1", Cards: []int32{2}, Graph: "grid"}}
	curves := []formats.CurveRow{
		{ModelID: 1, Method: "bp", Iteration: 2, TestNLL: 4, Seconds: 0.2},
		{ModelID: 0, Method: "exact", Iteration: 1, TestNLL: 5, Seconds: 1},
		{ModelID: 1, Method: "bp", Iteration: 1, TestNLL: 6, Seconds: 0.1},
	}
	rows := []formats.SampleRow{
		{ModelID: 1, Split: "test", X: []int32{0}, LogP: -1},
		{ModelID: 1, Split: "train", X: []int32{0}, LogP: -100},
		{ModelID: 1, Split: "test", X: []int32{1}, LogP: -2},
		{ModelID: 0, Split: "test", X: []int32{1}, LogP: -4},
	}
	for _, err := range []error{
		os.MkdirAll(models.OutDir, 0o755), os.MkdirAll(samples.OutDir, 0o755), os.MkdirAll(learn.OutDir, 0o755),
		formats.WriteModelInfo(filepath.Join(models.OutDir, formats.ModelInfoFile), infos, formats.Provenance{}),
		formats.WriteCurves(filepath.Join(learn.OutDir, formats.CurvesFile), curves, formats.Provenance{}),
		formats.WriteSamples(filepath.Join(samples.OutDir, formats.SamplesFile), rows, formats.Provenance{}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	r := &Reader{Store: &Store{}, Insts: []*Instance{models, samples, learn}}
	pt := &Progress{Prefix: "learn"}
	if err := r.ReadLearning(pt, []string{"learn"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range r.Obs {
		got = append(got, fmt.Sprintf("%s %s %v", o.Model, o.Method, o.Num))
		if o.Run != nil {
			got[len(got)-1] += fmt.Sprintf(" seed %s %v %v", o.Run.Seed, o.Run.NLL, o.Run.Seconds)
		}
	}
	want := []string{
		"1 bp map[epoch_seconds:0.15000000000000002 nll:4] seed 7 [6 4] [0.1 0.2]",
		"0 exact map[epoch_seconds:1 nll:5] seed 7 [5] [1]",
		"0 true map[nll:4]", "1 true map[nll:1.5]",
	}
	if !slices.Equal(got, want) || pt.Instances != 1 || len(pt.NotRun) != 0 {
		t.Errorf("facts\n%s\nwant\n%s (instances %d, not run %v)", strings.Join(got, "\n"), strings.Join(want, "\n"), pt.Instances, pt.NotRun)
	}
}

// A summary gives each row its setting; one not grouped by graph, size
// and gamma, or with a size that is not a number, is refused.
func TestReadSettingSummary(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, cols []string, rows []formats.SummaryRow) string {
		path := filepath.Join(dir, name)
		if err := formats.WriteSummary(path, cols, rows, formats.Provenance{}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cols := []string{"graph", "size", "gamma"}
	good := write("good.parquet", cols, []formats.SummaryRow{
		{Group: []string{"grid", "25", "0.1"}, Method: "bp", Metric: "l1", Mean: 0.2, N: 10},
		{Group: []string{"complete", "16", ""}, Method: "bp", Metric: "l1", Mean: 0.3, N: 10},
	})
	_, rows, err := ReadSettingSummary(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Set.Graph != "grid" || rows[0].Set.Size != 25 || rows[0].Set.Gamma != 0.1 || rows[1].Set.Gamma != 0 || rows[1].Mean != 0.3 {
		t.Errorf("rows %+v", rows)
	}
	for _, tc := range []struct {
		cols []string
		size string
		want string
	}{
		{[]string{"graph", "size"}, "25", "no gamma group column"},
		{cols, "big", `size "big" or gamma "0.1" is not a number`},
	} {
		group := []string{"grid", tc.size, "0.1"}[:len(tc.cols)]
		path := write("bad.parquet", tc.cols, []formats.SummaryRow{{Group: group, Method: "bp", Metric: "l1", N: 1}})
		if _, _, err := ReadSettingSummary(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.cols, err, tc.want)
		}
	}
}

// The models a weights-reading stage ran on but no score stage of the
// parts scored are compared with the reference's answers, every method's
// (build-regions aside); a set whose runs have not all completed, or that
// a score stage scored, is left out.
func TestReadUnscored(t *testing.T) {
	dir := t.TempDir()
	inst := func(stage, binary string, inputs map[string][]*Instance) *Instance {
		return &Instance{ID: stage, Stage: stage, Binary: binary, OutDir: filepath.Join(dir, stage), Inputs: inputs}
	}
	models, pending, scored := inst("grid_a", "sample-model", nil), inst("grid_b", "sample-model", nil), inst("grid_c", "sample-model", nil)
	weights := inst("family_net", "train-renn", nil)
	on := func(m *Instance) map[string][]*Instance {
		return map[string][]*Instance{"models": {m}, "weights": {weights}}
	}
	insts := []*Instance{models, pending, scored, weights,
		inst("regions", "build-regions", map[string][]*Instance{"models": {models}}),
		inst("gbp", "run-baselines", map[string][]*Instance{"models": {models}}), inst("fam", "train-renn", on(models)),
		inst("fam_b", "train-renn", on(pending)), inst("fam_c", "train-renn", on(scored)),
		inst("gbp_c", "run-baselines", map[string][]*Instance{"models": {scored}}),
		inst("amortized_c", "score", map[string][]*Instance{"models": {scored}}),
	}
	write := func(stage, method string, logZ, secs, p float64) {
		d := filepath.Join(dir, stage)
		var marg []formats.MarginalRow
		for v := range int32(4) {
			marg = append(marg, formats.MarginalRow{ModelID: 0, Method: method, Kind: "var", Index: v, Probs: []float64{p, 1 - p}})
		}
		for _, err := range []error{os.MkdirAll(d, 0o755),
			formats.WriteEstimates(filepath.Join(d, formats.EstimatesFile), []formats.EstimateRow{{ModelID: 0, Method: method, LogZ: logZ, Seconds: secs}}, formats.Provenance{}),
			formats.WriteMarginals(filepath.Join(d, formats.MarginalsFile), marg, formats.Provenance{}),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, m := range []*Instance{models, pending, scored} {
		if err := os.MkdirAll(m.OutDir, 0o755); err != nil {
			t.Fatal(err)
		}
		info := []formats.ModelInfoRow{{ModelID: 0, Name: m.Stage + "-0", Cards: []int32{2, 2, 2, 2}, Graph: "grid"}}
		if err := formats.WriteModelInfo(filepath.Join(m.OutDir, formats.ModelInfoFile), info, formats.Provenance{}); err != nil {
			t.Fatal(err)
		}
	}
	write("gbp", "gbp", 1, 2, 0.5)
	write("fam", "renn-family", 1.5, 0.5, 0.6)
	write("fam_c", "renn-family", 1.5, 0.5, 0.6)
	write("gbp_c", "gbp", 1, 2, 0.5)
	r := &Reader{Store: &Store{}, Insts: insts, ReadSpec: ReadSpec{Parts: []string{"amortized_"}, Labels: "side"}}
	pt, err := r.ReadUnscored("gbp")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range r.Obs {
		got = append(got, fmt.Sprintf("%s %s %s %s %v", o.Part, o.Set.Family, o.Set.Label, o.Method, o.Num))
	}
	want := []string{
		"unscored family_net 2x2 (1) gbp map[seconds:2]",
		"unscored family_net 2x2 (1) renn-family map[ref_logz_rms:0.5 ref_mean_abs:0.09999999999999998 seconds:0.5]",
	}
	if pt.Prefix != "unscored" || !slices.Equal(got, want) {
		t.Errorf("part %q facts\n%s\nwant\n%s", pt.Prefix, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
