package score

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Fixtures: every model's "exact" variable marginal gives p(x_i = +1) =
// t_i = 0.2 + 0.1 i + 0.05 id; every binary pairwise factor marginal is
// [.4 .1 .1 .4]. A method's marginals move every p(x_i = +1) (and unary
// factor) by delta and put [.4-pair .1 .1 .4+pair] on pairwise factors, so
// its l1 is (4 delta + 4 pair) / 8 on a 2x2 grid. Non-binary marginals are
// uniform, moved by +delta on their first entry and -delta on their last.

func gridModels(t *testing.T, gamma float64, n int) []stageio.Model {
	t.Helper()
	edges, err := mrf.GridEdges(2, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []stageio.Model
	for id := range n {
		out = append(out, stageio.Model{ID: int32(id), Info: mrf.Info{Name: "grid", Graph: "grid", Gamma: gamma, Seed: int64(id), Source: "test"},
			Model: mrf.RandomIsing(4, edges, gamma, int64(id))})
	}
	return out
}

// ternary is a non-binary model: variable 0 has 3 states, and its only
// factor lists its scope in descending order.
func ternary(id int32) stageio.Model {
	return stageio.Model{ID: id, Info: mrf.Info{Name: "ternary", Graph: "uai", Source: "test"},
		Model: &mrf.Model{Cards: []int{3, 2}, Factors: []mrf.Factor{{Vars: []int{1, 0}, LogTable: make([]float64, 6)}}}}
}

func writeModels(t *testing.T, dir string, models []stageio.Model) {
	t.Helper()
	infos, rows := stageio.Rows(models)
	prov := formats.Provenance{Stage: "test", Version: "test"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteModelInfo(filepath.Join(dir, formats.ModelInfoFile), infos, prov); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteModels(filepath.Join(dir, formats.ModelsFile), rows, prov); err != nil {
		t.Fatal(err)
	}
}

// provFrom is the provenance a stage computing from modelsDir would record.
func provFrom(t *testing.T, modelsDir string) formats.Provenance {
	t.Helper()
	p, err := stageio.Provenance("test", map[string]string{}, 0,
		[]string{filepath.Join(modelsDir, formats.ModelsFile), filepath.Join(modelsDir, formats.ModelInfoFile)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// perturbed returns the marginals of method on model e as described above.
func perturbed(e stageio.Model, method string, delta, pair float64) []formats.MarginalRow {
	m := e.Model
	varMarg := func(i int) []float64 {
		if m.Cards[i] == 2 {
			ti := 0.2 + 0.1*float64(i) + 0.05*float64(e.ID)
			return []float64{1 - ti - delta, ti + delta}
		}
		return moved(m.Cards[i], delta)
	}
	vars := make([][]float64, len(m.Cards))
	for i := range vars {
		vars[i] = varMarg(i)
	}
	factors := make([][]float64, len(m.Factors))
	for a, f := range m.Factors {
		switch {
		case len(f.Vars) == 1:
			factors[a] = varMarg(f.Vars[0])
		case len(f.Vars) == 2 && m.Cards[f.Vars[0]] == 2 && m.Cards[f.Vars[1]] == 2:
			factors[a] = []float64{0.4 - pair, 0.1, 0.1, 0.4 + pair}
		default:
			factors[a] = moved(mrf.TableSize(m.Cards, f.Vars), delta)
		}
	}
	return stageio.MarginalRows(e.ID, method, m, mrf.Marginals{Vars: vars, Factors: factors})
}

func moved(n int, delta float64) []float64 {
	p := make([]float64, n)
	for k := range p {
		p[k] = 1 / float64(n)
	}
	p[0] += delta
	p[n-1] -= delta
	return p
}

func writeRun(t *testing.T, dir string, prov formats.Provenance, marg []formats.MarginalRow, est []formats.EstimateRow) {
	t.Helper()
	if err := formats.WriteMarginals(filepath.Join(dir, formats.MarginalsFile), marg, prov); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteEstimates(filepath.Join(dir, formats.EstimatesFile), est, prov); err != nil {
		t.Fatal(err)
	}
}

// truthLogZ is the exact ln Z of every fixture model.
func truthLogZ(id int32) float64 { return 3 + float64(id) }

// writeTruth writes exact marginals and estimates of models.
func writeTruth(t *testing.T, dir, modelsDir string, models []stageio.Model) {
	t.Helper()
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, e := range models {
		marg = append(marg, perturbed(e, "exact", 0, 0)...)
		est = append(est, formats.EstimateRow{ModelID: e.ID, Method: "exact", LogZ: truthLogZ(e.ID), FreeEnergy: -truthLogZ(e.ID), Converged: true, Seconds: 9})
	}
	writeRun(t, dir, provFrom(t, modelsDir), marg, est)
}

// method describes a fake method's results on one model.
type method struct {
	name              string
	delta, pair, logZ float64 // logZ is added to the exact ln Z
	seconds           float64
	converged         bool
	iterations        int32
	check             string // the shared check's reason, if the answer failed it
}

func writePred(t *testing.T, dir, modelsDir string, models []stageio.Model, runs func(e stageio.Model) []method) {
	t.Helper()
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, e := range models {
		for _, r := range runs(e) {
			marg = append(marg, perturbed(e, r.name, r.delta, r.pair)...)
			row := stageio.EstimateRow(e.ID, r.name, &infer.Result{LogZ: truthLogZ(e.ID) + r.logZ, Status: testStatus(r.converged, r.check),
				Iterations: int(r.iterations), Check: r.check}, r.seconds, nil, "")
			est = append(est, row)
		}
	}
	writeRun(t, dir, provFrom(t, modelsDir), marg, est)
}

// shardA is two 2x2 grids (gamma 0.1) with methods bp and renn: bp moves
// by delta 0.01 and 0.03, renn is exact up to ln Z.
func shardA(t *testing.T, root string) (models, truth, pred string) {
	models, truth, pred = filepath.Join(root, "models", "size=4,gamma=0.1"), filepath.Join(root, "exact", "size=4,gamma=0.1"), filepath.Join(root, "pred", "size=4,gamma=0.1")
	ms := gridModels(t, 0.1, 2)
	writeModels(t, models, ms)
	writeTruth(t, truth, models, ms)
	writePred(t, pred, models, ms, func(e stageio.Model) []method {
		k := float64(e.ID)
		return []method{
			{name: "renn", logZ: -0.25, seconds: 2, converged: true, iterations: 100},
			{name: "bp", delta: 0.01 + 0.02*k, pair: 0.01, logZ: 0.5 * (k + 1), seconds: 0.1 * (k + 1), converged: e.ID == 0, iterations: 10 + 20*int32(k)},
		}
	})
	return models, truth, pred
}

// shardB repeats the model ids of shard A (gamma 1) and adds a non-binary
// model 2; bp moves by 0.05, 0.07 and 0.1. A second pred directory holds a
// method "custom" on model 0 only.
func shardB(t *testing.T, root string) (models, truth, pred, custom string) {
	models, truth, pred = filepath.Join(root, "models", "size=4,gamma=1"), filepath.Join(root, "exact", "size=4,gamma=1"), filepath.Join(root, "pred", "size=4,gamma=1")
	custom = filepath.Join(root, "custom")
	ms := append(gridModels(t, 1, 2), ternary(2))
	writeModels(t, models, ms)
	writeTruth(t, truth, models, ms)
	writePred(t, pred, models, ms, func(e stageio.Model) []method {
		return []method{{name: "bp", delta: []float64{0.05, 0.07, 0.1}[e.ID], pair: 0.01, logZ: 1, seconds: 1, converged: true, iterations: 5}}
	})
	if err := os.MkdirAll(custom, 0o755); err != nil {
		t.Fatal(err)
	}
	writePred(t, custom, models, ms[:1], func(stageio.Model) []method {
		return []method{{name: "custom", delta: 0.2, logZ: -1, seconds: 3, converged: true, iterations: 1}}
	})
	return models, truth, pred, custom
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

type runID struct {
	id     int32
	method string
}

func TestScoresAcrossShards(t *testing.T) {
	root := t.TempDir()
	ma, ta, pa := shardA(t, root)
	mb, tb, pb, pc := shardB(t, root)
	out := filepath.Join(root, "score")
	var stdout bytes.Buffer
	p := Params{Models: []string{ma, mb}, Truth: []string{tb, ta}, Pred: []string{pc, pa, pb}, Group: GroupColumns(), Table: "text", Partial: true}
	if err := Run(p, out, &stdout); err != nil {
		t.Fatal(err)
	}
	// renn runs on shard A only, custom on model 0 of shard B only: seven
	// runs are missing, which --partial allows, says and records.
	if !strings.Contains(stdout.String(), "partial: 7 (model, method) runs have no predictions") {
		t.Errorf("table lacks the partial note:\n%s", stdout.String())
	}
	if _, _, sprov, err := formats.ReadSummary(filepath.Join(out, formats.SummaryFile)); err != nil || strings.Count(sprov.Params, "no prediction") != 7 {
		t.Errorf("summary provenance %q (%v): want 7 missing runs", sprov.Params, err)
	}

	scores, prov, err := formats.ReadScores(filepath.Join(out, formats.ScoresFile))
	if err != nil {
		t.Fatal(err)
	}
	// Rows come in --models order, then model id, then method order; split
	// them into runs.
	var order []runID
	got := []map[string]float64{}
	for _, r := range scores {
		if len(order) == 0 || order[len(order)-1] != (runID{r.ModelID, r.Method}) {
			order = append(order, runID{r.ModelID, r.Method})
			got = append(got, map[string]float64{})
		}
		got[len(got)-1][r.Metric] = r.Value
	}
	wantOrder := []runID{{0, "bp"}, {0, "renn"}, {1, "bp"}, {1, "renn"}, {0, "bp"}, {0, "custom"}, {1, "bp"}, {2, "bp"}}
	if !slices.Equal(order, wantOrder) {
		t.Fatalf("runs %v, want %v", order, wantOrder)
	}
	// Rows of the two shards, whose model ids repeat, say where they came from.
	if first, last := scores[0], scores[len(scores)-1]; first.Models != ma || last.Models != mb || first.Name == "" {
		t.Errorf("shard columns: first row %q %q, last row %q %q", first.Models, first.Name, last.Models, last.Name)
	}
	// l1 = (4 delta + 4 pair) / 8; var errors are delta; factor mean error is
	// (8 delta + 8 pair) / 24 on a 2x2 grid.
	want := []map[string]float64{
		{"l1": 0.01, "var_mean_abs": 0.01, "var_max_abs": 0.01, "factor_mean_abs": 0.16 / 24, "factor_max_abs": 0.01, "logz_err": 0.5, "seconds": 0.1, "converged": 1, "iterations": 10},
		{"l1": 0, "corr": 1, "var_mean_abs": 0, "var_max_abs": 0, "factor_mean_abs": 0, "factor_max_abs": 0, "logz_err": 0.25, "seconds": 2, "converged": 1, "iterations": 100},
		{"l1": 0.02, "var_mean_abs": 0.03, "factor_max_abs": 0.03, "logz_err": 1, "converged": 0, "iterations": 30},
		{"l1": 0},
		{"l1": 0.03, "var_mean_abs": 0.05, "factor_mean_abs": 0.48 / 24, "logz_err": 1},
		// custom: pair 0, so l1 = 4 * 0.2 / 8.
		{"l1": 0.1, "var_max_abs": 0.2, "logz_err": 1, "seconds": 3},
		{"l1": 0.04},
		// Ternary model: variable entries |.1 0 .1| and |.1 .1| (mean .4/5);
		// factor entries .1 and .1 among 6.
		{"var_mean_abs": 0.08, "var_max_abs": 0.1, "factor_mean_abs": 0.2 / 6, "factor_max_abs": 0.1, "logz_err": 1},
	}
	for k, w := range want {
		for metric, v := range w {
			if g, ok := got[k][metric]; !ok || !near(g, v) {
				t.Errorf("model %d %s: %s = %v (present %v), want %v", order[k].id, order[k].method, metric, g, ok, v)
			}
		}
	}
	// The shards' repeated ids did not mix: corr of bp on shard A model 0 is
	// 1 (every entry moved by 0.01) but not on shard B model 0.
	if c := got[0]["corr"]; !near(c, 1) {
		t.Errorf("shard A model 0 bp corr = %v, want 1", c)
	}
	if c := got[4]["corr"]; c > 0.99 || c < 0.9 {
		t.Errorf("shard B model 0 bp corr = %v, want about 0.97", c)
	}
	// The non-binary model has no paper scores; binary ones have all ten.
	for _, metric := range []string{"l1", "corr"} {
		if _, ok := got[7][metric]; ok {
			t.Errorf("non-binary model scored with %s", metric)
		}
	}
	// bp is no bound and has no standard errors (se_coverage,
	// logz_se_coverage).
	if want := len(Metrics()) - len(boundMetrics) - 2; len(got[0]) != want {
		t.Errorf("binary run has %d scores, want %d", len(got[0]), want)
	}

	// Provenance lists every input with its sha256.
	var inputs []string
	for _, d := range []string{ma, mb} {
		inputs = append(inputs, filepath.Join(d, formats.ModelsFile), filepath.Join(d, formats.ModelInfoFile))
	}
	for _, d := range []string{ta, tb, pa, pb, pc} {
		inputs = append(inputs, filepath.Join(d, formats.MarginalsFile), filepath.Join(d, formats.EstimatesFile))
	}
	if len(prov.Inputs) != len(inputs) {
		t.Errorf("provenance has %d inputs, want %d: %v", len(prov.Inputs), len(inputs), prov.Inputs)
	}
	for _, in := range inputs {
		sum, err := formats.FileSHA256(in)
		if err != nil {
			t.Fatal(err)
		}
		if prov.Inputs[in] != sum {
			t.Errorf("provenance of %s: %q, want %q", in, prov.Inputs[in], sum)
		}
	}
	if prov.Stage != "score" {
		t.Errorf("stage %q, want score", prov.Stage)
	}

	// Summary: settings in order, mean and population std over the models.
	cols, sum, _, err := formats.ReadSummary(filepath.Join(out, formats.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	// With an imported model among them, the models are named: the imported
	// one's row is its own.
	if want := append(GroupColumns(), ModelColumn); !slices.Equal(cols, want) {
		t.Errorf("group columns %v, want %v", cols, want)
	}
	type skey struct{ group, method, metric string }
	cells := map[skey]formats.SummaryRow{}
	var groups []string
	for _, r := range sum {
		g := strings.Join(r.Group, "/")
		if len(groups) == 0 || groups[len(groups)-1] != g {
			groups = append(groups, g)
		}
		cells[skey{g, r.Method, r.Metric}] = r
	}
	if want := []string{"grid/4/0.1/", "grid/4/1/", "uai/2//ternary"}; !slices.Equal(groups, want) { // an imported model has no gamma
		t.Errorf("settings %v, want %v", groups, want)
	}
	for _, c := range []struct {
		group, method, metric string
		mean, std             float64
		n                     int32
	}{
		{"grid/4/0.1/", "bp", "l1", 0.015, 0.005, 2},
		{"grid/4/0.1/", "bp", "logz_err", 0.75, 0.25, 2},
		{"grid/4/0.1/", "bp", "converged", 0.5, 0.5, 2},
		{"grid/4/0.1/", "renn", "seconds", 2, 0, 2},
		{"grid/4/1/", "bp", "l1", 0.035, 0.005, 2},
		{"grid/4/1/", "custom", "l1", 0.1, 0, 1},
		{"uai/2//ternary", "bp", "var_mean_abs", 0.08, 0, 1},
	} {
		r, ok := cells[skey{c.group, c.method, c.metric}]
		if !ok || !near(r.Mean, c.mean) || !near(r.Std, c.std) || r.N != c.n {
			t.Errorf("summary %s %s %s: %+v (present %v), want mean %v std %v n %d", c.group, c.method, c.metric, r, ok, c.mean, c.std, c.n)
		}
	}
	if _, ok := cells[skey{"uai/2//ternary", "bp", "l1"}]; ok {
		t.Error("summary has l1 for the non-binary setting")
	}

	text := stdout.String()
	for _, s := range []string{"binary models only", "the 1 non-binary models (of 5)", "0.0350 ± 0.0050 ", "0.1000 (n=1)", "custom"} {
		if !strings.Contains(text, s) {
			t.Errorf("printed table lacks %q:\n%s", s, text)
		}
	}
	if i, j := strings.Index(text, "bp"), strings.Index(text, "custom"); i < 0 || j < i {
		t.Errorf("method columns out of order:\n%s", text)
	}
	for _, name := range []string{MarkdownFile, LatexFile} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			t.Errorf("text table wrote %s", name)
		}
	}
}

func TestMarkdownTable(t *testing.T) {
	root := t.TempDir()
	ma, ta, pa := shardA(t, root)
	out := filepath.Join(root, "score")
	var stdout bytes.Buffer
	if err := Run(Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}, Group: []string{"gamma"}, Table: "md"}, out, &stdout); err != nil {
		t.Fatal(err)
	}
	// bp: l1 .01 .02; corr 1 and 0.99209 (hand-computed from the vectors);
	// var errors .01 .03; factor mean errors .16/24 .32/24; hellinger the
	// mean over the four variables of H([1-t, t], [1-t-d, t+d]) with
	// t = 0.2 + 0.1 i + 0.05 k and d = 0.01 + 0.02 k on model k (0.00768
	// and 0.02218); pr_err 0.5 (k+1) / ln 10, renn's 0.25 / ln 10.
	want := `| metric | gamma | models | bp | renn |
| --- | --- | ---: | ---: | ---: |
| l1 | 0.1 | 2 | 0.0150 ± 0.0050 | 0.0000 ± 0.0000 |
| corr | 0.1 | 2 | 0.996 ± 0.004 | 1.000 ± 0.000 |
| logz_err | 0.1 | 2 | 0.750 ± 0.250 | 0.250 ± 0.000 |
| var_mean_abs | 0.1 | 2 | 0.0200 ± 0.0100 | 0.0000 ± 0.0000 |
| var_max_abs | 0.1 | 2 | 0.0200 ± 0.0100 | 0.0000 ± 0.0000 |
| factor_mean_abs | 0.1 | 2 | 0.0100 ± 0.0033 | 0.0000 ± 0.0000 |
| factor_max_abs | 0.1 | 2 | 0.0200 ± 0.0100 | 0.0000 ± 0.0000 |
| hellinger | 0.1 | 2 | 0.0149 ± 0.0073 | 0.0000 ± 0.0000 |
| pr_err | 0.1 | 2 | 0.326 ± 0.109 | 0.109 ± 0.000 |
| seconds | 0.1 | 2 | 0.15 ± 0.05 | 2 ± 0 |
| converged | 0.1 | 2 | 0.50 ± 0.50 | 1.00 ± 0.00 |
| iterations | 0.1 | 2 | 20.0 ± 10.0 | 100.0 ± 0.0 |

cells: mean ± population std over the models of each setting.
`
	if got := stdout.String(); got != want {
		t.Errorf("printed table:\n%s\nwant:\n%s", got, want)
	}
	file, err := os.ReadFile(filepath.Join(out, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != want {
		t.Errorf("%s differs from the printed table:\n%s", MarkdownFile, file)
	}
}

func TestLatexTable(t *testing.T) {
	root := t.TempDir()
	ma, ta, pa := shardA(t, root)
	out := filepath.Join(root, "score")
	var stdout bytes.Buffer
	if err := Run(Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}, Group: nil, Table: "latex"}, out, &stdout); err != nil {
		t.Fatal(err)
	}
	text := stdout.String()
	for _, s := range []string{`\begin{tabular}{lrcc}`, `Metric & Models & Loopy BP & RENN \\`,
		`$\ell_1$ error & 2 & 0.0150 $\pm$ 0.0050 & 0.0000 $\pm$ 0.0000 \\`, `\bottomrule`, `mean $\pm$ population std`} {
		if !strings.Contains(text, s) {
			t.Errorf("LaTeX table lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "±") {
		t.Errorf("LaTeX table has a raw ±:\n%s", text)
	}
	file, err := os.ReadFile(filepath.Join(out, LatexFile))
	if err != nil || string(file) != text {
		t.Errorf("%s: %v, differs from the printed table", LatexFile, err)
	}
	_, sum, _, err := formats.ReadSummary(filepath.Join(out, formats.SummaryFile))
	if err != nil || len(sum) == 0 || len(sum[0].Group) != 0 {
		t.Errorf("ungrouped summary: %v, %d rows", err, len(sum))
	}
}

type errorCase struct {
	name string
	// setup builds the scenario under root and returns its parameters.
	setup func(t *testing.T, root string) Params
	want  []string // substrings of the error
}

func TestErrors(t *testing.T) {
	tests := []errorCase{
		{"pred without matching models", func(t *testing.T, root string) Params {
			ma, ta, _ := shardA(t, root)
			mb, _, pb, _ := shardB(t, root)
			_ = mb
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pb}}
		}, []string{filepath.Join("size=4,gamma=1", formats.MarginalsFile), "no --models directory holds"}},
		{"provenance without models", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			p := formats.Provenance{Stage: "x", Inputs: map[string]string{"elsewhere/model_info.parquet": "abc"}}
			writeRun(t, pa, p, perturbed(gridModels(t, 0.1, 1)[0], "bp", 0, 0), nil)
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{filepath.Join("pred", "size=4,gamma=0.1", formats.MarginalsFile), "no models.parquet"}},
		{"ambiguous models", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			p := provFrom(t, ma)
			p.Inputs["other/models.parquet"] = "0123"
			writeRun(t, pa, p, perturbed(gridModels(t, 0.1, 1)[0], "bp", 0, 0), nil)
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{"ambiguous", "other/models.parquet"}},
		{"no truth", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			mb, _, pb, _ := shardB(t, root)
			return Params{Models: []string{ma, mb}, Truth: []string{ta}, Pred: []string{pa, pb}}
		}, []string{filepath.Join("models", "size=4,gamma=1") + `) method "bp"`, "no exact marginals"}},
		{"missing factor marginal", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			ms := gridModels(t, 0.1, 2)
			var marg []formats.MarginalRow
			for _, e := range ms {
				marg = append(marg, perturbed(e, "bp", 0.01, 0)...)
			}
			marg = slices.DeleteFunc(marg, func(r formats.MarginalRow) bool { return r.ModelID == 1 && r.Kind == "factor" && r.Index == 5 })
			writeRun(t, pa, provFrom(t, ma), marg, []formats.EstimateRow{{ModelID: 0, Method: "bp"}, {ModelID: 1, Method: "bp"}})
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{formats.MarginalsFile, `model 1 (grid`, `method "bp"`, "no marginal of factor 5"}},
		{"missing estimates", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			writeRun(t, pa, provFrom(t, ma), perturbed(gridModels(t, 0.1, 1)[0], "bp", 0, 0), nil)
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{formats.EstimatesFile, `method "bp"`, "no estimates row"}},
		{"wrong length", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			marg := perturbed(gridModels(t, 0.1, 1)[0], "bp", 0, 0)
			marg[2].Probs = []float64{0.2, 0.3, 0.5}
			writeRun(t, pa, provFrom(t, ma), marg, []formats.EstimateRow{{ModelID: 0, Method: "bp"}})
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{formats.MarginalsFile, `model 0 (grid) method "bp" var 2`, "3 probabilities, want 2"}},
		{"wrong scope", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			marg := perturbed(gridModels(t, 0.1, 1)[0], "bp", 0, 0)
			last := &marg[len(marg)-1]
			last.Vars = []int32{last.Vars[1], last.Vars[0]}
			writeRun(t, pa, provFrom(t, ma), marg, []formats.EstimateRow{{ModelID: 0, Method: "bp"}})
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{`method "bp" factor 7: vars [3 2], want [2 3]`}},
		{"unknown model id", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			marg := perturbed(gridModels(t, 0.1, 1)[0], "bp", 0, 0)
			marg[0].ModelID = 9
			writeRun(t, pa, provFrom(t, ma), marg, nil)
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{"model 9 is not in"}},
		{"marginal given twice", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa, pa}}
		}, []string{"given twice"}},
		{"same models twice", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			return Params{Models: []string{ma, ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{"hold the same models.parquet"}},
		{"missing pred file", func(t *testing.T, root string) Params {
			ma, ta, _ := shardA(t, root)
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{filepath.Join(root, "models")}}
		}, []string{filepath.Join("models", formats.MarginalsFile)}},
		{"unknown group", func(t *testing.T, root string) Params {
			return Params{Models: []string{root}, Truth: []string{root}, Pred: []string{root}, Group: []string{"colour"}}
		}, []string{`unknown group column "colour"`}},
		{"unknown table", func(t *testing.T, root string) Params {
			return Params{Models: []string{root}, Truth: []string{root}, Pred: []string{root}, Table: "html"}
		}, []string{`unknown table format "html"`}},
		{"partial without --partial", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			mb, tb, pb, _ := shardB(t, root)
			return Params{Models: []string{ma, mb}, Truth: []string{ta, tb}, Pred: []string{pa, pb}}
		}, []string{"3 (model, method) runs", filepath.Join("models", "size=4,gamma=1") + `) method "renn"`, `method "renn": no prediction`, "--partial"}},
		{"failed runs recorded", func(t *testing.T, root string) Params {
			ma, ta, pa := shardA(t, root)
			ms := gridModels(t, 0.1, 2)
			p := provFrom(t, ma)
			p.Params = `{"failed":[{"model_id":1,"model":"grid","method":"bp","error":"out of memory"}]}`
			var marg []formats.MarginalRow
			for _, e := range ms {
				marg = append(marg, perturbed(e, "renn", 0, 0)...)
			}
			marg = append(marg, perturbed(ms[0], "bp", 0, 0)...)
			writeRun(t, pa, p, marg, []formats.EstimateRow{{ModelID: 0, Method: "renn"}, {ModelID: 1, Method: "renn"}, {ModelID: 0, Method: "bp"}})
			return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
		}, []string{"1 (model, method) runs", `model 1 (grid, models`, `method "bp": failed (recorded in `, filepath.Join("pred", "size=4,gamma=0.1", formats.EstimatesFile) + "): out of memory"}},
		badPred("pred NaN probability", func(marg []formats.MarginalRow, _ []formats.EstimateRow) { marg[3].Probs[0] = math.NaN() },
			formats.MarginalsFile, `method "bp"`, "variable 3: probability NaN at state 0"),
		badPred("pred negative probability", func(marg []formats.MarginalRow, _ []formats.EstimateRow) {
			marg[3].Probs[0], marg[3].Probs[1] = -0.1, 1.1
		}, formats.MarginalsFile, "variable 3: probability -0.1 at state 0"),
		badPred("pred unnormalised", func(marg []formats.MarginalRow, _ []formats.EstimateRow) { marg[len(marg)-1].Probs[0] += 0.01 },
			formats.MarginalsFile, "factor 7: probabilities sum to 1.01"),
		badPred("pred infinite probability", func(marg []formats.MarginalRow, _ []formats.EstimateRow) { marg[3].Probs[1] = math.Inf(1) },
			"probability +Inf at state 1"),
		badPred("pred NaN ln Z", func(_ []formats.MarginalRow, est []formats.EstimateRow) { est[0].LogZ = math.NaN() },
			formats.EstimatesFile, "ln Z is NaN"),
		badTruth("truth NaN probability", func(marg []formats.MarginalRow, _ []formats.EstimateRow) { marg[0].Probs[1] = math.NaN() },
			"truth: ", filepath.Join("exact", "size=4,gamma=0.1", formats.MarginalsFile), `method "exact"`, "variable 0: probability NaN"),
		badTruth("truth unnormalised", func(marg []formats.MarginalRow, _ []formats.EstimateRow) { marg[0].Probs[1] *= 2 },
			"truth: ", "variable 0: probabilities sum to"),
		badTruth("truth -Inf ln Z", func(_ []formats.MarginalRow, est []formats.EstimateRow) { est[1].LogZ = math.Inf(-1) },
			"truth: ", formats.EstimatesFile, "model 1 (grid", "ln Z is -Inf"),
		badTruth("truth failed check", func(_ []formats.MarginalRow, est []formats.EstimateRow) {
			est[0].Params, est[0].Converged, est[0].Status = `{"check":"ln Z is -Inf"}`, false, formats.StatusCheckFailed
		},
			"truth: ", "the exact answer failed its check: ln Z is -Inf"),
		{"no pred", func(t *testing.T, root string) Params {
			return Params{Models: []string{root}, Truth: []string{root}}
		}, []string{"need at least one"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			p := tc.setup(t, root)
			if p.Table == "" {
				p.Table = "text"
			}
			out := filepath.Join(root, "score-out")
			err := Run(p, out, &bytes.Buffer{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, serr := os.Stat(filepath.Join(out, formats.ScoresFile)); serr == nil {
				t.Error("a failed run wrote scores.parquet")
			}
		})
	}
}

// badPred is an error case: shard A with bp's and renn's answers (renn
// exact, bp moved by 0.01), the estimates of model 0's bp first, changed by
// mut.
func badPred(name string, mut func([]formats.MarginalRow, []formats.EstimateRow), want ...string) errorCase {
	return errorCase{name, func(t *testing.T, root string) Params {
		ma, ta, pa := shardA(t, root)
		ms := gridModels(t, 0.1, 2)
		var marg []formats.MarginalRow
		var est []formats.EstimateRow
		for _, e := range ms {
			est = append(est, formats.EstimateRow{ModelID: e.ID, Method: "bp", LogZ: 1, Params: "{}"}, formats.EstimateRow{ModelID: e.ID, Method: "renn", LogZ: 1})
			marg = append(marg, perturbed(e, "bp", 0.01, 0)...)
			marg = append(marg, perturbed(e, "renn", 0, 0)...)
		}
		mut(marg, est)
		writeRun(t, pa, provFrom(t, ma), marg, est)
		return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
	}, want}
}

// badTruth is an error case: shard A with its exact answers changed by mut.
func badTruth(name string, mut func([]formats.MarginalRow, []formats.EstimateRow), want ...string) errorCase {
	return errorCase{name, func(t *testing.T, root string) Params {
		ma, ta, pa := shardA(t, root)
		ms := gridModels(t, 0.1, 2)
		var marg []formats.MarginalRow
		var est []formats.EstimateRow
		for _, e := range ms {
			marg = append(marg, perturbed(e, "exact", 0, 0)...)
			est = append(est, formats.EstimateRow{ModelID: e.ID, Method: "exact", LogZ: truthLogZ(e.ID), Converged: true})
		}
		mut(marg, est)
		writeRun(t, ta, provFrom(t, ma), marg, est)
		return Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}}
	}, want}
}

// TestCheckFailedMayBeMalformed: a prediction whose estimate records a
// failed check is scored as it is, NaN and all.
func TestCheckFailedMayBeMalformed(t *testing.T) {
	root := t.TempDir()
	ma, ta, pa := shardA(t, root)
	ms := gridModels(t, 0.1, 2)
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, e := range ms {
		marg = append(marg, perturbed(e, "bp", 0.01, 0)...)
		est = append(est, stageio.EstimateRow(e.ID, "bp", &infer.Result{LogZ: math.NaN(), Check: "ln Z is NaN", Status: infer.CheckFailed}, 1, nil, ""))
	}
	marg[0].Probs[0] = math.NaN()
	writeRun(t, pa, provFrom(t, ma), marg, est)
	if err := Run(Params{Models: []string{ma}, Truth: []string{ta}, Pred: []string{pa}, Table: "text"}, filepath.Join(root, "out"), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
}

// An answer that failed the shared check scores check_failed 1, and the
// printed table counts the failures per method.
func TestCheckFailed(t *testing.T) {
	root := t.TempDir()
	models, truth, pred := filepath.Join(root, "models"), filepath.Join(root, "exact"), filepath.Join(root, "pred")
	ms := gridModels(t, 0.1, 2)
	writeModels(t, models, ms)
	writeTruth(t, truth, models, ms)
	writePred(t, pred, models, ms, func(e stageio.Model) []method {
		m := method{name: "bp", converged: true, iterations: 3}
		if e.ID == 1 {
			m.converged, m.check = false, "ln Z is -Inf"
		}
		return []method{m}
	})
	out := filepath.Join(root, "score")
	var stdout bytes.Buffer
	if err := Run(Params{Models: []string{models}, Truth: []string{truth}, Pred: []string{pred}, Table: "text"}, out, &stdout); err != nil {
		t.Fatal(err)
	}
	scores, _, err := formats.ReadScores(filepath.Join(out, formats.ScoresFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int32]float64{}
	for _, r := range scores {
		if r.Metric == CheckFailed {
			got[r.ModelID] = r.Value
		}
	}
	if got[0] != 0 || got[1] != 1 || len(got) != 2 {
		t.Errorf("check_failed by model %v, want 0: 0, 1: 1", got)
	}
	if !strings.Contains(stdout.String(), "1 answers failed the shared check") || !strings.Contains(stdout.String(), "bp 1/2") {
		t.Errorf("table does not count the failed check:\n%s", stdout.String())
	}
}

// testStatus is the status of a made-up run.
func testStatus(converged bool, check string) infer.Status {
	switch {
	case check != "":
		return infer.CheckFailed
	case converged:
		return infer.Converged
	}
	return infer.IterationLimit
}
