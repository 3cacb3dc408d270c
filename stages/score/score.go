// Package score is the score stage: it compares every method's marginals and
// log Z estimates with the exact ones, writes the scores of every model and
// their summary over groups of models, and prints the summary as a table
// shaped like the paper's.
//
// The outputs of several shards are scored together, and model ids repeat
// across shards, so a marginals or estimates file is tied to its models by
// provenance: its Inputs record the path and sha256 of the models.parquet it
// was computed from, and a model is known by that sha256 and its model_id.
package score

import (
	"fmt"
	"github.com/renn-go/renn/core/methods"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Params are the score parameters.
type Params struct {
	Models []string `json:"models"`          // directories with models.parquet and model_info.parquet
	Truth  []string `json:"truth"`           // directories with exact-infer's marginals and estimates
	Pred   []string `json:"pred"`            // directories with the methods' marginals and estimates
	Group  []string `json:"group"`           // group columns of the summary, from GroupColumns; none pools every model
	Table  string   `json:"table"`           // "text", "md" or "latex"
	Plots  bool     `json:"plots,omitempty"` // also write the PNGs of SizePlots; needs the size group column

	// By is "setting" (the default: one row per setting of the group
	// columns, and per model for imported models) or "model": also a table
	// with one row per model, whatever its kind, below the settings'.
	By string `json:"by,omitempty"`

	// Partial scores predictions that cover only some (model, method)
	// runs of the --models directories: the missing runs are warned about
	// and listed in the summary's provenance ("missing") and the table's
	// notes. Without it they are an error.
	Partial bool `json:"partial,omitempty"`
}

// Names of the scores taken from estimates.parquet rather than computed from
// marginals, both from the estimate's status. Converged is 1 or 0, so its
// mean is the fraction converged; CheckFailed is 1 when the answer failed
// the shared check (status check_failed, infer.Verify; the reason is in the
// estimate's params, "check"), so its mean is the fraction of answers that
// failed it. Such an answer is never converged.
const (
	Seconds     = "seconds"
	Converged   = "converged"
	CheckFailed = "check_failed"
	Iterations  = "iterations"
)

// Metrics returns every score in the order of the printed table.
func Metrics() []string {
	return []string{metrics.L1, metrics.Corr, metrics.LogZErr, metrics.VarMeanAbs, metrics.VarMaxAbs,
		metrics.FactorMeanAbs, metrics.FactorMaxAbs, metrics.Hellinger, metrics.PRErr, SECoverage, LogZSECoverage, Seconds, Converged, CheckFailed, Iterations,
		BoundHeld, SandwichWidth}
}

// GroupColumns returns the columns a summary can be grouped by: the graph of
// model_info, the number of variables, and the field strength gamma (blank
// for imported models: see gammaValue).
func GroupColumns() []string { return []string{"graph", "size", "gamma"} }

// ModelColumn is the group column naming each model: added to the group
// columns when imported (UAI) models are scored, whose rows are each
// model's own (a folder of UAI files is scored file by file), and for every
// model in the table of --by model. Generated models leave it blank in the
// summary: their rows pool the models of a setting.
const ModelColumn = "model"

// bys are the values of Params.By.
var bys = []string{"setting", "model"}

// Tables returns the formats of the printed summary.
func Tables() []string { return []string{"text", "md", "latex"} }

// Output files written beside scores.parquet and summary.parquet by the md
// and latex tables.
const (
	MarkdownFile = "summary.md"
	LatexFile    = "summary.tex"
)

// Check reports whether p is complete and names known group columns and
// table format.
func (p Params) Check() error {
	if len(p.Models) == 0 || len(p.Truth) == 0 || len(p.Pred) == 0 {
		return fmt.Errorf("need at least one models, truth and pred directory (got %d, %d, %d)", len(p.Models), len(p.Truth), len(p.Pred))
	}
	for i, g := range p.Group {
		if !slices.Contains(GroupColumns(), g) {
			return fmt.Errorf("unknown group column %q (want some of %s)", g, strings.Join(GroupColumns(), ", "))
		}
		if slices.Contains(p.Group[:i], g) {
			return fmt.Errorf("group column %q given twice", g)
		}
	}
	if p.By != "" && !slices.Contains(bys, p.By) {
		return fmt.Errorf("unknown --by %q (want one of %s)", p.By, strings.Join(bys, ", "))
	}
	if !slices.Contains(Tables(), p.Table) {
		return fmt.Errorf("unknown table format %q (want one of %s)", p.Table, strings.Join(Tables(), ", "))
	}
	if p.Plots && !slices.Contains(p.Group, "size") {
		return fmt.Errorf("plots are drawn against size: group by size too (group is %q)", strings.Join(p.Group, ","))
	}
	return nil
}

// Run scores every method of p.Pred against the exact results of p.Truth on
// the models of p.Models, writes scores.parquet and summary.parquet (and
// summary.md or summary.tex for those tables) into out, and prints the
// summary table to w.
func Run(p Params, out string, w io.Writer) error {
	if err := p.Check(); err != nil {
		return err
	}
	shards, truth, pred, inputs, err := loadInputs(p)
	if err != nil {
		return err
	}
	cols := groupColumns(p.Group, shards)
	scored, noTruth, err := scoreAll(shards, truth, pred, cols, p.Partial)
	if err != nil {
		return err
	}
	if len(scored) == 0 && len(noTruth) == 0 {
		return fmt.Errorf("no predictions in %s", strings.Join(p.Pred, ", "))
	}
	miss := missing(shards, pred)
	if len(miss) > 0 && !p.Partial {
		return missingError(miss, p.Pred)
	}
	for _, m := range append(slices.Clone(miss), noTruth...) {
		slog.Warn("score: not scored", "run", m)
	}
	scoreRows := scoreRowsOf(scored)
	sum := summarise(scored)
	record := struct {
		Params
		Missing []string `json:"missing,omitempty"`
		NoTruth []string `json:"no_exact,omitempty"`
	}{p, miss, noTruth}
	prov, err := stageio.Provenance("score", record, 0, inputs)
	if err != nil {
		return err
	}
	tab := buildTable(cols, sum, scored)
	if len(miss) > 0 {
		tab.notes = append(tab.notes, fmt.Sprintf("note: partial: %d (model, method) runs have no predictions and are not scored (listed under \"missing\" in the provenance of %s).",
			len(miss), formats.SummaryFile))
	}
	if len(noTruth) > 0 {
		tab.notes = append(tab.notes, fmt.Sprintf("note: partial: %d (model, method) runs are of models without an exact answer (exact-infer --skip-too-wide) and are not scored (listed under \"no_exact\" in the provenance of %s).",
			len(noTruth), formats.SummaryFile))
	}
	outs := []stageio.Output{
		{Name: formats.ScoresFile, Write: func(path string) error { return formats.WriteScores(path, scoreRows, prov) }},
		{Name: formats.SummaryFile, Write: func(path string) error {
			return formats.WriteSummary(path, cols, summaryRows(sum), prov)
		}},
	}
	if p.Plots {
		plots, err := plotOutputs(cols, sum)
		if err != nil {
			return err
		}
		outs = append(outs, plots...)
	}
	printed, tableOuts := printTables(p, tab, scored)
	if err := stageio.Commit(out, append(outs, tableOuts...)...); err != nil {
		return err
	}
	_, err = io.WriteString(w, printed)
	return err
}

// loadInputs reads the models of p.Models, the exact results of p.Truth
// and the predictions of p.Pred, and returns them with the paths read.
func loadInputs(p Params) (shards []*shard, truth, pred *collection, inputs []string, err error) {
	shards, shardOf, paths, err := loadShards(p.Models)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	inputs = append(inputs, paths...)
	truth = newCollection()
	for _, dir := range p.Truth {
		paths, err := truth.read(dir, shardOf, func(method string) bool { return method == "exact" })
		if err != nil {
			return nil, nil, nil, nil, err
		}
		inputs = append(inputs, paths...)
	}
	pred = newCollection()
	for _, dir := range p.Pred {
		paths, err := pred.read(dir, shardOf, func(string) bool { return true })
		if err != nil {
			return nil, nil, nil, nil, err
		}
		inputs = append(inputs, paths...)
	}
	return shards, truth, pred, inputs, nil
}

// scoreRowsOf returns the rows of scores.parquet: every value of every run.
func scoreRowsOf(scored []scoredRun) []formats.ScoreRow {
	var rows []formats.ScoreRow
	for _, s := range scored {
		for _, v := range s.values {
			rows = append(rows, formats.ScoreRow{ModelID: s.model.ID, Models: s.shard.dir, Name: s.model.Info.Name,
				Method: s.method, Metric: v.metric, Value: v.value})
		}
	}
	return rows
}

// plotOutputs returns the PNGs of SizePlots that the summary has data for.
func plotOutputs(cols []string, sum summary) ([]stageio.Output, error) {
	figs, err := sizeFigures(cols, summaryRows(sum))
	if err != nil {
		return nil, err
	}
	var outs []stageio.Output
	for _, sp := range SizePlots() {
		if f, ok := figs[sp.File]; ok {
			outs = append(outs, stageio.Output{Name: sp.File, Write: f.WritePNG})
		}
	}
	return outs, nil
}

// printTables renders the summary table tab (and with p.By "model" the
// table per model) in the format p.Table; it returns the text to print and
// the file it goes to, if any.
func printTables(p Params, tab table, scored []scoredRun) (string, []stageio.Output) {
	tabs := []table{tab}
	if p.By == "model" {
		tabs = append(tabs, perModelTable(p.Group, scored))
	}
	var printed string
	var outs []stageio.Output
	switch p.Table {
	case "text":
		printed = render(tabs, table.text, "per model:\n")
	case "md":
		printed = render(tabs, table.markdown, "Per model:\n\n")
		outs = append(outs, stageio.Output{Name: MarkdownFile, Write: func(path string) error { return formats.WriteTextFile(path, printed) }})
	case "latex":
		printed = render(tabs, table.latex, "% per model\n")
		outs = append(outs, stageio.Output{Name: LatexFile, Write: func(path string) error { return formats.WriteTextFile(path, printed) }})
	}
	return printed, outs
}

// shard is one --models directory.
type shard struct {
	dir    string
	sha    string // of its models.parquet
	order  int    // position among the --models directories
	models map[int32]*stageio.Model
}

// loadShards reads every models directory and keys it by the sha256 of its
// models.parquet.
func loadShards(dirs []string) ([]*shard, map[string]*shard, []string, error) {
	var shards []*shard
	bySHA := map[string]*shard{}
	var inputs []string
	for k, dir := range dirs {
		models, paths, err := stageio.LoadModels(dir)
		if err != nil {
			return nil, nil, nil, err
		}
		sha, err := formats.FileSHA256(paths[0])
		if err != nil {
			return nil, nil, nil, err
		}
		if prev, dup := bySHA[sha]; dup {
			return nil, nil, nil, fmt.Errorf("models directories %s and %s hold the same models.parquet (sha256 %s); pass it once", prev.dir, dir, short(sha))
		}
		s := &shard{dir: dir, sha: sha, order: k, models: map[int32]*stageio.Model{}}
		for i := range models {
			s.models[models[i].ID] = &models[i]
		}
		bySHA[sha] = s
		shards = append(shards, s)
		inputs = append(inputs, paths...)
	}
	return shards, bySHA, inputs, nil
}

// modelsOf finds the shard a marginals or estimates file was computed from:
// the models.parquet among its provenance inputs.
func modelsOf(path string, prov formats.Provenance, shardOf map[string]*shard) (*shard, error) {
	var recorded []string
	shas := map[string]bool{}
	for in, sha := range prov.Inputs {
		if filepath.Base(in) == formats.ModelsFile {
			recorded = append(recorded, in)
			shas[sha] = true
		}
	}
	sort.Strings(recorded)
	switch {
	case len(shas) == 0:
		return nil, fmt.Errorf("%s: its provenance lists no %s among its inputs, so its models are unknown", path, formats.ModelsFile)
	case len(shas) > 1:
		return nil, fmt.Errorf("%s: its provenance lists several different %s inputs (%s), so its models are ambiguous", path, formats.ModelsFile, strings.Join(recorded, ", "))
	}
	sha := prov.Inputs[recorded[0]]
	s := shardOf[sha]
	if s == nil {
		return nil, fmt.Errorf("%s: computed from %s (sha256 %s), which no --models directory holds", path, recorded[0], short(sha))
	}
	return s, nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// run is one method's results on one model.
type run struct {
	shard    *shard
	model    *stageio.Model
	method   string
	marg     mrf.Marginals
	margFile string // file the marginals came from
	est      *formats.EstimateRow
	estFile  string
	dir      string      // directory the run was first seen in
	se       [][]float64 // standard errors of the variable marginals (stderrs.parquet), if any
	logZSE   *float64    // standard error of ln Z (stderrs.parquet), if any
}

type runKey struct {
	sha    string
	id     int32
	method string
}

// collection gathers the runs of several truth or pred directories.
type collection struct {
	runs   map[runKey]*run
	failed map[runKey]failure // runs a stage recorded as failed
}

func newCollection() *collection {
	return &collection{runs: map[runKey]*run{}, failed: map[runKey]failure{}}
}

func (c *collection) get(s *shard, id int32, method, dir, path string) (*run, error) {
	k := runKey{s.sha, id, method}
	r := c.runs[k]
	if r != nil {
		return r, nil
	}
	m := s.models[id]
	if m == nil {
		return nil, fmt.Errorf("%s: model %d is not in %s", path, id, s.dir)
	}
	r = &run{shard: s, model: m, method: method, dir: dir,
		marg: mrf.Marginals{Vars: make([][]float64, len(m.Model.Cards)), Factors: make([][]float64, len(m.Model.Factors))}}
	c.runs[k] = r
	return r, nil
}

// read adds the marginals and estimates of dir whose method keep accepts,
// checking every marginal against its model. It returns the paths it read.
func (c *collection) read(dir string, shardOf map[string]*shard, keep func(string) bool) ([]string, error) {
	mpath := filepath.Join(dir, formats.MarginalsFile)
	epath := filepath.Join(dir, formats.EstimatesFile)
	marg, mprov, err := formats.ReadMarginals(mpath)
	if err != nil {
		return nil, err
	}
	est, eprov, err := formats.ReadEstimates(epath)
	if err != nil {
		return nil, err
	}
	ms, err := modelsOf(mpath, mprov, shardOf)
	if err != nil {
		return nil, err
	}
	es, err := modelsOf(epath, eprov, shardOf)
	if err != nil {
		return nil, err
	}
	for k, f := range failures(epath, eprov) {
		c.failed[runKey{es.sha, k.id, k.method}] = f
	}
	for i := range marg {
		row := &marg[i]
		if !keep(row.Method) {
			continue
		}
		r, err := c.get(ms, row.ModelID, row.Method, dir, mpath)
		if err != nil {
			return nil, err
		}
		if err := r.addMarginal(row, mpath); err != nil {
			return nil, err
		}
	}
	for i := range est {
		row := &est[i]
		if !keep(row.Method) {
			continue
		}
		r, err := c.get(es, row.ModelID, row.Method, dir, epath)
		if err != nil {
			return nil, err
		}
		if r.est != nil {
			return nil, fmt.Errorf("%s: model %d method %q: estimates given twice (also in %s)", epath, row.ModelID, row.Method, r.estFile)
		}
		r.est, r.estFile = row, epath
	}
	sepath, err := c.readStderrs(dir, shardOf, keep)
	if err != nil {
		return nil, err
	}
	return append([]string{mpath, epath}, sepath...), nil
}

// addMarginal checks one marginal row against the model and stores it.
func (r *run) addMarginal(row *formats.MarginalRow, path string) error {
	m := r.model.Model
	where := fmt.Sprintf("%s: model %d (%s) method %q %s %d", path, row.ModelID, r.model.Info.Name, row.Method, row.Kind, row.Index)
	var slot *[]float64
	var scope []int
	switch row.Kind {
	case "var":
		if row.Index < 0 || int(row.Index) >= len(m.Cards) {
			return fmt.Errorf("%s: variable out of range [0,%d)", where, len(m.Cards))
		}
		slot, scope = &r.marg.Vars[row.Index], []int{int(row.Index)}
	case "factor":
		if row.Index < 0 || int(row.Index) >= len(m.Factors) {
			return fmt.Errorf("%s: factor out of range [0,%d)", where, len(m.Factors))
		}
		slot, scope = &r.marg.Factors[row.Index], m.Factors[row.Index].Vars
	default:
		return fmt.Errorf("%s: kind %q, want \"var\" or \"factor\"", where, row.Kind)
	}
	if !sameScope(row.Vars, scope) {
		return fmt.Errorf("%s: vars %v, want %v", where, row.Vars, scope)
	}
	if n := tableSize(m.Cards, scope); len(row.Probs) != n {
		return fmt.Errorf("%s: %d probabilities, want %d", where, len(row.Probs), n)
	}
	if *slot != nil {
		return fmt.Errorf("%s: given twice (first in %s)", where, r.margFile)
	}
	*slot, r.margFile = row.Probs, path
	return nil
}

func sameScope(got []int32, want []int) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if int(got[i]) != want[i] {
			return false
		}
	}
	return true
}

func tableSize(cards, vars []int) int {
	n := 1
	for _, v := range vars {
		n *= cards[v]
	}
	return n
}

// complete reports the first marginal or estimate r lacks.
func (r *run) complete() error {
	where := fmt.Sprintf("model %d (%s, models %s) method %q", r.model.ID, r.model.Info.Name, r.shard.dir, r.method)
	mfile := r.margFile
	if mfile == "" {
		mfile = filepath.Join(r.dir, formats.MarginalsFile)
	}
	for i, p := range r.marg.Vars {
		if p == nil {
			return fmt.Errorf("%s: %s: no marginal of variable %d", mfile, where, i)
		}
	}
	for a, p := range r.marg.Factors {
		if p == nil {
			return fmt.Errorf("%s: %s: no marginal of factor %d", mfile, where, a)
		}
	}
	if r.est == nil {
		return fmt.Errorf("%s: %s: no estimates row", filepath.Join(r.dir, formats.EstimatesFile), where)
	}
	return nil
}

// value is one score of one run.
type value struct {
	metric string
	value  float64
}

// scoredRun is a pred run with its scores and its group.
type scoredRun struct {
	*run
	binary bool
	group  group
	values []value
}

// scoreAll scores every pred run against its truth, in the order of the
// --models directories, model ids and methods. A run whose model has no
// exact answer is an error, or with partial listed in noTruth and left out.
func scoreAll(shards []*shard, truth, pred *collection, groupCols []string, partial bool) (out []scoredRun, noTruth []string, err error) {
	keys := make([]runKey, 0, len(pred.runs))
	for k := range pred.runs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		ra, rb := pred.runs[keys[a]], pred.runs[keys[b]]
		if ra.shard.order != rb.shard.order {
			return ra.shard.order < rb.shard.order
		}
		if ra.model.ID != rb.model.ID {
			return ra.model.ID < rb.model.ID
		}
		return methodLess(ra.method, rb.method)
	})
	out = make([]scoredRun, 0, len(keys))
	for _, k := range keys {
		r := pred.runs[k]
		if err := r.complete(); err != nil {
			return nil, nil, err
		}
		t := truth.runs[runKey{k.sha, k.id, "exact"}]
		if t == nil && partial {
			noTruth = append(noTruth, fmt.Sprintf("model %d (%s, models %s) method %q: no exact answer", r.model.ID, r.model.Info.Name, r.shard.dir, r.method))
			continue
		}
		if t == nil {
			return nil, nil, fmt.Errorf("%s: model %d (%s, models %s) method %q: no exact marginals and estimates for this model in the --truth directories (--partial scores the others)",
				r.margFile, r.model.ID, r.model.Info.Name, r.shard.dir, r.method)
		}
		if err := t.complete(); err != nil {
			return nil, nil, fmt.Errorf("truth: %w", err)
		}
		if err := checkTruth(t); err != nil {
			return nil, nil, err
		}
		if err := checkPred(r); err != nil {
			return nil, nil, err
		}
		s, err := scoreRun(r, t)
		if err != nil {
			return nil, nil, err
		}
		s.values = append(s.values, boundHeld(r, t)...)
		s.group = groupOf(r.model, groupCols, false)
		out = append(out, s)
	}
	addSandwich(out)
	return out, noTruth, nil
}

// scoreRun computes every score of r against the exact run t.
func scoreRun(r, t *run) (scoredRun, error) {
	m := r.model.Model
	s := scoredRun{run: r, binary: metrics.IsBinary(m)}
	where := fmt.Sprintf("model %d (%s, models %s) method %q", r.model.ID, r.model.Info.Name, r.shard.dir, r.method)
	if s.binary {
		p, err := metrics.ComparePaper(m, t.marg, r.marg)
		if err != nil {
			return s, fmt.Errorf("%s: %w", where, err)
		}
		s.values = append(s.values, value{metrics.L1, p.L1}, value{metrics.Corr, p.Corr})
	}
	claimsLogZ := !(noLogZ(r.method) && math.IsNaN(r.est.LogZ))
	if claimsLogZ {
		s.values = append(s.values, value{metrics.LogZErr, metrics.LogZError(t.est.LogZ, r.est.LogZ)})
	}
	e, err := metrics.CompareMarginals(m, t.marg, r.marg)
	if err != nil {
		return s, fmt.Errorf("%s: %w", where, err)
	}
	s.values = append(s.values, value{metrics.VarMeanAbs, e.VarMeanAbs}, value{metrics.VarMaxAbs, e.VarMaxAbs})
	if e.FactorEntries > 0 {
		s.values = append(s.values, value{metrics.FactorMeanAbs, e.FactorMeanAbs}, value{metrics.FactorMaxAbs, e.FactorMaxAbs})
	}
	s.values, err = appendUAIScores(s.values, m, t, r, claimsLogZ)
	if err != nil {
		return s, fmt.Errorf("%s: %w", where, err)
	}
	if c, ok := coverage(r, t); ok {
		s.values = append(s.values, value{SECoverage, c})
	}
	if c, ok := logZCoverage(r, t); ok {
		s.values = append(s.values, value{LogZSECoverage, c})
	}
	conv, failed := 0.0, 0.0
	switch r.est.Status {
	case formats.StatusConverged:
		conv = 1
	case formats.StatusCheckFailed:
		failed = 1
	}
	s.values = append(s.values, value{Seconds, r.est.Seconds}, value{Converged, conv}, value{CheckFailed, failed},
		value{Iterations, float64(r.est.Iterations)})
	return s, nil
}

// group is the setting a model belongs to: its values of the group columns.
type group struct {
	vals  []string
	name  string // of the model, for the model column
	graph string
	size  int
	gamma float64
	cols  []string
}

// groupOf is the setting of model m by cols. Its model column (see
// ModelColumn) names imported models only, unless every model is named.
func groupOf(m *stageio.Model, cols []string, everyModel bool) group {
	g := group{graph: m.Info.Graph, size: m.Model.NumVars(), gamma: m.Info.Gamma, cols: cols}
	if everyModel || m.Info.Graph == importedGraph {
		g.name = m.Info.Name
	}
	for _, c := range cols {
		switch c {
		case ModelColumn:
			g.vals = append(g.vals, g.name)
		case "graph":
			g.vals = append(g.vals, g.graph)
		case "size":
			g.vals = append(g.vals, strconv.Itoa(g.size))
		case "gamma":
			g.vals = append(g.vals, gammaValue(m.Info))
		}
	}
	return g
}

// importedGraph is the graph of models imported from UAI files (sample-model
// uai, and what learn-mrf learns from them).
const importedGraph = "uai"

// gammaValue is a model's value of the gamma group column: blank for an
// imported model, which has no field strength (model_info holds 0 there).
func gammaValue(in mrf.Info) string {
	if in.Graph == importedGraph {
		return ""
	}
	return strconv.FormatFloat(in.Gamma, 'g', -1, 64)
}

func (g group) key() string { return strings.Join(g.vals, "\x00") }

// less orders settings column by column, numerically for size and gamma.
func (g group) less(h group) bool {
	for _, c := range g.cols {
		switch c {
		case "graph":
			if g.graph != h.graph {
				return g.graph < h.graph
			}
		case "size":
			if g.size != h.size {
				return g.size < h.size
			}
		case "gamma":
			if g.gamma != h.gamma {
				return g.gamma < h.gamma
			}
		case ModelColumn:
			if g.name != h.name {
				return g.name < h.name
			}
		}
	}
	return false
}

// groupColumns are the group columns of the summary: cols, and the model
// column when imported models are among the shards' (so that a folder of
// UAI files gives a row per file, named), unless cols pools every model.
func groupColumns(cols []string, shards []*shard) []string {
	if len(cols) == 0 || slices.Contains(cols, ModelColumn) {
		return cols
	}
	for _, s := range shards {
		for _, m := range s.models {
			if m.Info.Graph == importedGraph {
				return append(slices.Clone(cols), ModelColumn)
			}
		}
	}
	return cols
}

// methodLess orders methods as the registry does (the paper's tables, then
// the methods beyond it); unregistered names follow alphabetically.
func methodLess(a, b string) bool { return methods.Compare(a, b) < 0 }

// cell is the summary of one metric of one method over one setting.
type cell struct {
	group  group
	method string
	metric string
	metrics.Summary
}

// summary holds every cell in order of setting, method and metric.
type summary struct {
	groups  []group
	methods []string
	cells   []cell
}

func summarise(scored []scoredRun) summary {
	type ckey struct{ group, method, metric string }
	values := map[ckey][]float64{}
	groups := map[string]group{}
	methods := map[string]bool{}
	for _, s := range scored {
		groups[s.group.key()] = s.group
		methods[s.method] = true
		for _, v := range s.values {
			k := ckey{s.group.key(), s.method, v.metric}
			values[k] = append(values[k], v.value)
		}
	}
	var sum summary
	for _, g := range groups {
		sum.groups = append(sum.groups, g)
	}
	sort.Slice(sum.groups, func(a, b int) bool { return sum.groups[a].less(sum.groups[b]) })
	for m := range methods {
		sum.methods = append(sum.methods, m)
	}
	sort.Slice(sum.methods, func(a, b int) bool { return methodLess(sum.methods[a], sum.methods[b]) })
	for _, g := range sum.groups {
		for _, m := range sum.methods {
			for _, metric := range Metrics() {
				xs, ok := values[ckey{g.key(), m, metric}]
				if !ok {
					continue
				}
				sum.cells = append(sum.cells, cell{group: g, method: m, metric: metric, Summary: metrics.Summarize(xs)})
			}
		}
	}
	return sum
}

func summaryRows(sum summary) []formats.SummaryRow {
	rows := make([]formats.SummaryRow, len(sum.cells))
	for i, c := range sum.cells {
		rows[i] = formats.SummaryRow{Group: c.group.vals, Method: c.method, Metric: c.metric, Mean: c.Mean, Std: c.Std, N: int32(c.N)}
	}
	return rows
}

// undefined reports whether the cell's mean is undefined: a NaN score, or
// (never in practice) no values.
func (c cell) undefined() bool { return c.NaN > 0 || math.IsNaN(c.Mean) }

// appendUAIScores appends the UAI competitions' scores of r against t:
// hellinger when some variable is unobserved (metrics.Observed), pr_err
// when r claims an ln Z.
func appendUAIScores(vals []value, m *mrf.Model, t, r *run, claimsLogZ bool) ([]value, error) {
	h, n, err := metrics.MeanHellinger(m, t.marg, r.marg)
	if err != nil {
		return vals, err
	}
	if n > 0 {
		vals = append(vals, value{metrics.Hellinger, h})
	}
	if claimsLogZ {
		vals = append(vals, value{metrics.PRErr, metrics.PRError(t.est.LogZ, r.est.LogZ)})
	}
	return vals, nil
}
