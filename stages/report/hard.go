package report

// The "Beyond the paper: hard models" section: every method on model
// families harder than the paper's (strong couplings, tori, dense and
// bipartite graphs), from the score stages named hard_* of the config and
// the estimates and marginals those stages scored.

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/score"
)

// HardPrefix begins the name of every stage of the hard-models section;
// the section reads the score stages among them.
const HardPrefix = "hard_"

// HardAnchor is the Markdown anchor of the section.
const HardAnchor = "beyond-the-paper-hard-models"

// FixedPointTol is the largest difference between two runs' variable
// beliefs, max_i max_x |b(x_i) - b'(x_i)|, that still counts as the same
// fixed point. Converged BP runs stop when no belief changes by 1e-9 in a
// sweep, so two runs at one fixed point agree far more closely than this.
const FixedPointTol = 1e-3

// StationaryTol is the largest Bethe stationarity residual (see
// betheResidual) of beliefs that count as a stationary point of the Bethe
// free energy, that is, a fixed point of BP.
const StationaryTol = 1e-6

// hardRun is one method's run on one model.
type hardRun struct {
	metrics map[string]float64   // scores.parquet
	est     *formats.EstimateRow // the method's estimates row
	// Variable and factor marginals (bp and dbp only), by variable and by
	// factor id.
	vars    [][]float64
	factors map[int32][]float64
	// residual is betheResidual of the marginals; NaN when it cannot be
	// measured (marginals missing, or not a binary pairwise model).
	residual float64
	// pred is the instance whose estimates est is.
	pred *pipeline.Instance
}

// hardModel is one model with its exact -ln Z and every method's run.
type hardModel struct {
	id      int32
	name    string
	negLogZ float64
	exact   bool // negLogZ is known
	runs    map[string]*hardRun
	info    formats.ModelInfoRow
	factors []formats.FactorRow // the model's factors, from models.parquet
}

func (m *hardModel) run(method string) *hardRun {
	r := m.runs[method]
	if r == nil {
		r = &hardRun{metrics: map[string]float64{}}
		m.runs[method] = r
	}
	return r
}

// hardSetting is a family of models: the models whose names differ only in
// their trailing index.
type hardSetting struct {
	key    string // the model name without its index, e.g. grid10-Ju10-hu1
	label  string // for the reader, e.g. grid 10x10, J ~ U(−10,10), h ~ U(−1,1)
	graph  string
	size   int // number of variables
	models []*hardModel
}

// hardData is what the section shows.
type hardData struct {
	stages   []string // the hard_* score stages of the config
	settings []*hardSetting
	// bounds holds the bounds_* score stages' settings, shown in the
	// bounds table only (nil without such stages).
	bounds  *boundsData
	methods []string // every method scored, in registry order
	notRun  []string // score instances without outputs yet
	// rt is the run time of every hard_* instance; statusErr says why
	// their status could not be taken.
	rt        RunTime
	statusErr error
}

// splitHard splits a plan into the paper's instances and those of the
// hard_* stages. Neither depends on the other.
func splitHard(plan *pipeline.Plan) (paper, hard *pipeline.Plan) {
	return splitPrefix(plan, HardPrefix)
}

// splitPrefix splits a plan into the instances of the stages whose names
// begin with prefix and the others.
func splitPrefix(plan *pipeline.Plan, prefix string) (rest, matched *pipeline.Plan) {
	rest, matched = &pipeline.Plan{Config: plan.Config}, &pipeline.Plan{Config: plan.Config}
	for _, inst := range plan.Instances {
		if strings.HasPrefix(inst.Stage.Name, prefix) {
			matched.Instances = append(matched.Instances, inst)
		} else {
			rest.Instances = append(rest.Instances, inst)
		}
	}
	return rest, matched
}

// scoreSection is what a section beyond the paper reads from the score
// stages whose names begin with its prefix.
type scoreSection struct {
	stages []string // the score stages, in plan order
	notRun []string // score instances without outputs yet
	// rt is the run time of every instance of the prefix's stages;
	// statusErr says why their status could not be taken.
	rt        RunTime
	statusErr error
	scored    []scoredInstance
}

// scoredInstance is a score instance that has run, with its models.
type scoredInstance struct {
	inst   *pipeline.Instance
	models []settingModel
}

// readScoreSection reads every score instance of the stages of plan whose
// names begin with prefix, and the run time of all their instances, with
// their status against the binaries in binDir unless it is empty. An
// instance that has not run is listed, not an error.
func readScoreSection(plan *pipeline.Plan, prefix, binDir string) (*scoreSection, error) {
	d := &scoreSection{}
	var err error
	if d.rt, err = ReadRunTime(plan); err != nil {
		return nil, err
	}
	if binDir != "" {
		d.statusErr = d.rt.addStatus(plan, binDir)
	}
	for _, inst := range plan.Instances {
		st := inst.Stage
		if !strings.HasPrefix(st.Name, prefix) || len(st.Run) == 0 || st.Run[0] != "score" {
			continue
		}
		if !slices.Contains(d.stages, st.Name) {
			d.stages = append(d.stages, st.Name)
		}
		path := filepath.Join(inst.OutDir, formats.ScoresFile)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			d.notRun = append(d.notRun, inst.ID)
			continue
		}
		models, err := readHardInstance(plan.Config.Dir, inst)
		if err != nil {
			return nil, err
		}
		d.scored = append(d.scored, scoredInstance{inst, models})
	}
	return d, nil
}

// readHard reads every score instance of the hard_* stages of the plan and
// the run time of all their instances (readScoreSection).
func readHard(plan *pipeline.Plan, binDir string) (*hardData, error) {
	sec, err := readScoreSection(plan, HardPrefix, binDir)
	if err != nil {
		return nil, err
	}
	d := &hardData{stages: sec.stages, notRun: sec.notRun, rt: sec.rt, statusErr: sec.statusErr}
	d.settings, d.methods = groupSettings(sec)
	return d, nil
}

// groupSettings gathers the scored models of a section into settings, in
// the order first met, and lists every method scored, in registry order.
func groupSettings(sec *scoreSection) (settings []*hardSetting, ms []string) {
	byKey := map[string]*hardSetting{}
	for _, sc := range sec.scored {
		for _, m := range sc.models {
			s := byKey[m.setting.key]
			if s == nil {
				s = m.setting
				byKey[s.key] = s
				settings = append(settings, s)
			}
			s.models = append(s.models, m.model)
			for meth := range m.model.runs {
				if !slices.Contains(ms, meth) {
					ms = append(ms, meth)
				}
			}
		}
	}
	sortMethods(ms)
	return settings, ms
}

// sortMethods orders methods as the registry does.
func sortMethods(ms []string) {
	slices.SortFunc(ms, func(a, b string) int {
		if methodLess(a, b) {
			return -1
		}
		if methodLess(b, a) {
			return 1
		}
		return 0
	})
}

// hardShard is one models directory of a score instance.
type hardShard struct {
	dir     string
	infos   map[int32]formats.ModelInfoRow
	factors map[int32][]formats.FactorRow // of every model, from models.parquet
	models  map[int32]*hardModel
	order   []int32 // model ids in model_info order
}

// settingModel is a model with the setting it belongs to.
type settingModel struct {
	setting *hardSetting
	model   *hardModel
}

// readHardInstance reads one score instance: scores.parquet, the model_info
// of its models inputs, the estimates of its truth and pred inputs and the
// variable marginals of bp and dbp. Files are tied to models as score ties
// them: by the sha256 of models.parquet recorded in their provenance.
func readHardInstance(cfgDir string, inst *pipeline.Instance) ([]settingModel, error) {
	byDir := map[string]*hardShard{}
	bySHA := map[string]*hardShard{}
	var shards []*hardShard
	var truth []string
	var pred []*pipeline.Instance
	for _, in := range inst.Inputs {
		dir := in.From.OutDir
		switch in.Flag {
		case "models":
			infos, _, err := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
			if err != nil {
				return nil, err
			}
			mpath := filepath.Join(dir, formats.ModelsFile)
			sha, err := formats.FileSHA256(mpath)
			if err != nil {
				return nil, err
			}
			factors, _, err := formats.ReadModels(mpath)
			if err != nil {
				return nil, err
			}
			sh := &hardShard{dir: dir, infos: map[int32]formats.ModelInfoRow{}, factors: map[int32][]formats.FactorRow{}, models: map[int32]*hardModel{}}
			for _, f := range factors {
				sh.factors[f.ModelID] = append(sh.factors[f.ModelID], f)
			}
			for _, r := range infos {
				sh.infos[r.ModelID] = r
				sh.order = append(sh.order, r.ModelID)
			}
			byDir[filepath.Clean(dir)] = sh
			bySHA[sha] = sh
			shards = append(shards, sh)
		case "truth":
			truth = append(truth, dir)
		case "pred":
			pred = append(pred, in.From)
		}
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("stage %s: no models input, so its scores cannot be read as hard models", inst.ID)
	}
	model := func(sh *hardShard, id int32, path string) (*hardModel, error) {
		if m := sh.models[id]; m != nil {
			return m, nil
		}
		info, ok := sh.infos[id]
		if !ok {
			return nil, fmt.Errorf("%s: model %d is not in %s", path, id, filepath.Join(sh.dir, formats.ModelInfoFile))
		}
		m := &hardModel{id: id, name: info.Name, runs: map[string]*hardRun{}, info: info, factors: sh.factors[id]}
		sh.models[id] = m
		return m, nil
	}

	spath := filepath.Join(inst.OutDir, formats.ScoresFile)
	rows, _, err := formats.ReadScores(spath)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		dir := r.Models
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cfgDir, dir)
		}
		sh := byDir[filepath.Clean(dir)]
		if sh == nil {
			return nil, fmt.Errorf("%s: model %d (%s) comes from %s, which is not a models input of stage %s", spath, r.ModelID, r.Name, r.Models, inst.ID)
		}
		m, err := model(sh, r.ModelID, spath)
		if err != nil {
			return nil, err
		}
		m.run(r.Method).metrics[r.Metric] = r.Value
	}

	for _, dir := range truth {
		path := filepath.Join(dir, formats.EstimatesFile)
		est, prov, err := formats.ReadEstimates(path)
		if err != nil {
			return nil, err
		}
		sh, err := hardShardOf(path, prov, bySHA)
		if err != nil {
			return nil, err
		}
		for _, e := range est {
			if e.Method != "exact" {
				continue
			}
			m, err := model(sh, e.ModelID, path)
			if err != nil {
				return nil, err
			}
			m.negLogZ, m.exact = -e.LogZ, true
		}
	}
	for _, from := range pred {
		dir := from.OutDir
		path := filepath.Join(dir, formats.EstimatesFile)
		est, prov, err := formats.ReadEstimates(path)
		if errors.Is(err, fs.ErrNotExist) {
			// A method stage added to the score's inputs that has not run
			// yet: the score, older than it, did not score it either.
			continue
		}
		if err != nil {
			return nil, err
		}
		sh, err := hardShardOf(path, prov, bySHA)
		if err != nil {
			return nil, err
		}
		fixed := false
		for i := range est {
			e := &est[i]
			m, err := model(sh, e.ModelID, path)
			if err != nil {
				return nil, err
			}
			m.run(e.Method).est = e
			m.run(e.Method).pred = from
			fixed = fixed || readsBeliefs(e.Method)
		}
		if !fixed {
			continue
		}
		mpath := filepath.Join(dir, formats.MarginalsFile)
		marg, mprov, err := formats.ReadMarginals(mpath)
		if err != nil {
			return nil, err
		}
		if sh, err = hardShardOf(mpath, mprov, bySHA); err != nil {
			return nil, err
		}
		for _, r := range marg {
			if !readsBeliefs(r.Method) {
				continue
			}
			m, err := model(sh, r.ModelID, mpath)
			if err != nil {
				return nil, err
			}
			run := m.run(r.Method)
			switch r.Kind {
			case "var":
				if r.Index < 0 || int(r.Index) >= len(sh.infos[r.ModelID].Cards) {
					return nil, fmt.Errorf("%s: model %d method %s: variable %d out of range", mpath, r.ModelID, r.Method, r.Index)
				}
				if run.vars == nil {
					run.vars = make([][]float64, len(sh.infos[r.ModelID].Cards))
				}
				run.vars[r.Index] = r.Probs
			case "factor":
				if run.factors == nil {
					run.factors = map[int32][]float64{}
				}
				run.factors[r.Index] = r.Probs
			}
		}
	}
	for _, sh := range shards {
		for id, m := range sh.models {
			for meth, run := range m.runs {
				if isFixedPointMethod(meth) {
					run.residual = metrics.BetheResidual(modelOf(sh.infos[id].Cards, sh.factors[id], run.vars, run.factors))
				}
			}
		}
	}

	var out []settingModel
	settings := map[string]*hardSetting{}
	for _, sh := range shards {
		for _, id := range sh.order {
			m := sh.models[id]
			if m == nil {
				continue
			}
			info := sh.infos[id]
			key := settingKey(info.Name)
			s := settings[key]
			if s == nil {
				s = &hardSetting{key: key, label: settingLabel(info), graph: info.Graph, size: len(info.Cards)}
				settings[key] = s
			}
			out = append(out, settingModel{s, m})
		}
	}
	return out, nil
}

// isFixedPointMethod names the methods whose beliefs the section compares
// model by model as BP fixed points.
func isFixedPointMethod(method string) bool { return method == "bp" || method == "dbp" }

// readsBeliefs names the methods whose marginals the section reads: the BP
// fixed points and the two minimisers of the region free energy compared
// in the dlgbp table.
func readsBeliefs(method string) bool {
	return isFixedPointMethod(method) || method == "gbp" || method == "dlgbp"
}

// hardShardOf finds the models a file was computed from by the sha256 of
// the models.parquet among its provenance inputs.
func hardShardOf(path string, prov formats.Provenance, bySHA map[string]*hardShard) (*hardShard, error) {
	var found *hardShard
	for in, sha := range prov.Inputs {
		if filepath.Base(in) != formats.ModelsFile {
			continue
		}
		sh := bySHA[sha]
		if sh == nil {
			return nil, fmt.Errorf("%s: computed from %s, which is not among the models its score stage read", path, in)
		}
		if found != nil && found != sh {
			return nil, fmt.Errorf("%s: its provenance lists several models files", path)
		}
		found = sh
	}
	if found == nil {
		return nil, fmt.Errorf("%s: its provenance lists no %s, so its models are unknown", path, formats.ModelsFile)
	}
	return found, nil
}

// settingKey is a model's name without its trailing index: the models of
// one sample-model call share it.
func settingKey(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

// settingLabel describes a model's family from its model_info: the graph
// (from the name's first part: grid10, torus10, complete16,
// bipartite20x20), then the coupling and field distributions (from the
// source; the paper's family records none: couplings N(0,1), fields
// N(0, gamma^2)).
func settingLabel(info formats.ModelInfoRow) string {
	head, _, _ := strings.Cut(info.Name, "-")
	shape := head
	num := strings.TrimLeft(head, "abcdefghijklmnopqrstuvwxyz")
	kind := strings.TrimSuffix(head, num)
	switch kind {
	case "grid", "torus":
		shape = fmt.Sprintf("%s %sx%s", kind, num, num)
	case "complete":
		shape = "K" + num
	case "bipartite":
		shape = "bipartite " + strings.Replace(num, "x", "+", 1)
	}
	couplings, fields := "normal:1", "normal:"+strconv.FormatFloat(info.Gamma, 'g', -1, 64)
	for _, f := range strings.Fields(info.Source) {
		if v, ok := strings.CutPrefix(f, "couplings="); ok {
			couplings = v
		}
		if v, ok := strings.CutPrefix(f, "fields="); ok {
			fields = v
		}
	}
	return fmt.Sprintf("%s, J ~ %s, h ~ %s", shape, distText(couplings), distText(fields))
}

// distText writes normal:σ as N(0,σ²) and uniform:F as U(−F,F).
func distText(d string) string {
	kind, scale, ok := strings.Cut(d, ":")
	if !ok {
		return d
	}
	switch kind {
	case "normal":
		if scale == "1" {
			return "N(0,1)"
		}
		return "N(0," + scale + "²)"
	case "uniform":
		return "U(−" + scale + "," + scale + ")"
	}
	return d
}

// Statistics of one method over the models of a setting.

// values returns the metric of every model where method ran.
func (s *hardSetting) values(method, metric string) []float64 {
	var xs []float64
	for _, m := range s.models {
		if r := m.runs[method]; r != nil {
			if v, ok := r.metrics[metric]; ok {
				xs = append(xs, v)
			}
		}
	}
	return xs
}

// hardStat is the mean, or for max the largest, of a metric over a
// setting's models; ok is false when the method has no value there.
func (s *hardSetting) stat(method, metric string, largest bool) (float64, bool) {
	xs := s.values(method, metric)
	if len(xs) == 0 {
		return 0, false
	}
	if largest {
		v := math.Inf(-1)
		for _, x := range xs {
			if math.IsNaN(x) {
				return math.NaN(), true
			}
			v = max(v, x)
		}
		return v, true
	}
	return metrics.Summarize(xs).Mean, true
}

// freeEnergy returns the mean over the setting's models of the method's
// free energy and of that free energy plus the exact ln Z (its signed
// distance from -ln Z), over the models where both are known.
func (s *hardSetting) freeEnergy(method string) (f, gap float64, n int) {
	for _, m := range s.models {
		r := m.runs[method]
		if r == nil || r.est == nil || !m.exact {
			continue
		}
		f += r.est.FreeEnergy
		gap += r.est.FreeEnergy - m.negLogZ
		n++
	}
	if n == 0 {
		return 0, 0, 0
	}
	return f / float64(n), gap / float64(n), n
}

// negLogZ is the mean exact -ln Z over the setting's models.
func (s *hardSetting) negLogZ() (float64, int) {
	sum, n := 0.0, 0
	for _, m := range s.models {
		if m.exact {
			sum += m.negLogZ
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

// Fixed points of BP and damped BP.

// fixedPoint compares bp's and dbp's runs on one model.
type fixedPoint struct {
	ok           bool    // both ran, with estimates and variable beliefs
	bpConv       bool    // bp converged
	dbpConv      bool    // dbp converged
	distance     float64 // max_i max_x |b_bp(x_i) - b_dbp(x_i)|
	bpF, dbpF    float64 // their Bethe free energies
	bpErr, dbErr float64 // their mean |ΔP(x_i)|
	bpRes, dbRes float64 // their betheResidual
}

// stationary reports whether a Bethe residual says the beliefs are a
// stationary point of the Bethe free energy.
func stationary(res float64) bool { return res <= StationaryTol }

// both reports whether both runs converged.
func (f fixedPoint) both() bool { return f.ok && f.bpConv && f.dbpConv }

// different reports whether both converged to different fixed points.
func (f fixedPoint) different() bool { return f.both() && f.distance > FixedPointTol }

func compareFixedPoints(m *hardModel) fixedPoint {
	bp, dbp := m.runs["bp"], m.runs["dbp"]
	if bp == nil || dbp == nil || bp.est == nil || dbp.est == nil || bp.vars == nil || dbp.vars == nil || len(bp.vars) != len(dbp.vars) {
		return fixedPoint{}
	}
	f := fixedPoint{ok: true, bpConv: bp.est.Converged, dbpConv: dbp.est.Converged,
		bpF: bp.est.FreeEnergy, dbpF: dbp.est.FreeEnergy,
		bpErr: bp.metrics[metrics.VarMeanAbs], dbErr: dbp.metrics[metrics.VarMeanAbs],
		bpRes: bp.residual, dbRes: dbp.residual}
	for i := range bp.vars {
		a, b := bp.vars[i], dbp.vars[i]
		if len(a) != len(b) {
			return fixedPoint{}
		}
		for x := range a {
			f.distance = max(f.distance, math.Abs(a[x]-b[x]))
		}
	}
	return f
}

// fixedPointCounts tallies the models of a setting.
type fixedPointCounts struct {
	models, compared, both, same, different int
	// Among the models with different fixed points: where the one of lower
	// Bethe free energy had the lower mean error, and where dbp's had the
	// higher free energy.
	lowerFBetter, dbpHigher int
	// Converged bp and dbp runs, and those of them whose beliefs are a
	// stationary point of the Bethe free energy by betheResidual.
	converged, stationary int
}

func countFixedPoints(s *hardSetting) fixedPointCounts {
	var c fixedPointCounts
	for _, m := range s.models {
		c.models++
		f := compareFixedPoints(m)
		if !f.ok {
			continue
		}
		c.compared++
		for _, r := range []struct {
			conv bool
			res  float64
		}{{f.bpConv, f.bpRes}, {f.dbpConv, f.dbRes}} {
			if r.conv {
				c.converged++
				if stationary(r.res) {
					c.stationary++
				}
			}
		}
		if !f.both() {
			continue
		}
		c.both++
		if !f.different() {
			c.same++
			continue
		}
		c.different++
		if f.dbpF > f.bpF {
			c.dbpHigher++
		}
		if (f.bpF < f.dbpF) == (f.bpErr < f.dbErr) {
			c.lowerFBetter++
		}
	}
	return c
}

// Rendering.

// hardRows are the rows of the accuracy table: a metric, its label, and
// whether the row shows the largest value over the models instead of the
// mean.
var hardRows = []struct {
	metric, label string
	largest       bool
}{
	{metrics.VarMeanAbs, "mean \\|ΔP(x_i)\\|", false},
	{metrics.VarMaxAbs, "max \\|ΔP(x_i)\\|", true},
	{metrics.LogZErr, "ln Z error", false},
	{score.Seconds, "seconds", false},
	{score.Converged, "converged", false},
}

func hardNumber(metric string, v float64) string {
	switch metric {
	case score.Converged:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case metrics.VarMeanAbs, metrics.VarMaxAbs:
		if v != 0 && math.Abs(v) < 0.01 && !math.IsNaN(v) {
			return strconv.FormatFloat(v, 'e', 1, 64)
		}
	}
	return formatNumber(metric, v)
}

// markdown writes the section: heading, what it shows, the tables, and a
// "not run" line for whatever has not run.
func (d *hardData) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("<a id=\"%s\"></a>\n\n## Beyond the paper: hard models\n\n", HardAnchor)
	if d == nil || len(d.stages) == 0 {
		w("Not run: the config has no %s* score stages.\n\n", HardPrefix)
		return b.String()
	}
	w("Model families harder than the paper's (issue 19), from stages %s and the stages they score: ", quoteJoin(d.stages))
	w("every method against exact inference, each setting scored on its own. ")
	w("Model k of one setting of the grids and tori is model k of the family's other coupling strengths with its couplings scaled (the stages share a seed). ")
	w("RENN runs three ways that differ only in the network: renn (the paper's attention network), renn-mp (the network that reads the model) and renn-direct (free logits, no network); the stages' flags, and why, are in the config's comments. ")
	if classic := classicMethods(d.methods); classic != "" {
		w("Beside them, the classic methods of issue 22: %s. ", classic)
	}
	w("With the plain penalty (what constraint auto picks on dense region graphs, such as complete and complete bipartite graphs) RENN stops at beliefs that are not consistent, whose region free energy can lie far below −ln Z; renn and renn-direct then report `converged` when the loss settled, renn-mp only when its beliefs are also consistent.\n\n")
	if len(d.notRun) > 0 {
		w("Not run yet: %s.\n\n", strings.Join(truncate(d.notRun, 12), ", "))
	}
	w("%s\n", d.runTime())
	if len(d.settings) == 0 {
		w("No setting has been scored yet.\n\n")
		return b.String()
	}
	w("%s\n", d.accuracyTable())
	w("%s\n", d.freeEnergyTable())
	w("%s\n", d.fixedPointTable())
	if t := d.dlgbpTable(); t != "" {
		w("%s\n", t)
	}
	for _, s := range d.settings {
		if s.graph == "bipartite" {
			w("%s\n", s.modelTable())
		}
	}
	if t := d.boundsTable(); t != "" {
		w("%s\n", t)
		if m := d.bounds.markdown(); m != "" {
			w("%s\n", m)
		}
	}
	if checks := d.checks(); checks != "" {
		w("%s\n", checks)
	}
	return b.String()
}

func (d *hardData) header(first ...string) string { return tableHeader(first, d.methods) }

// tableHeader is a Markdown table's header: the first columns left-aligned,
// then one right-aligned column per method.
func tableHeader(first, methods []string) string {
	cols := append(append([]string(nil), first...), methods...)
	var b strings.Builder
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|")
	for i := range cols {
		if i < len(first) {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	return b.String()
}

func (d *hardData) accuracyTable() string {
	var b strings.Builder
	b.WriteString("### Accuracy, time and convergence\n\n")
	b.WriteString(d.header("metric", "setting", "models"))
	for _, row := range hardRows {
		for k, s := range d.settings {
			label := ""
			if k == 0 {
				label = row.label
			}
			vals := make([]float64, len(d.methods))
			ok := make([]bool, len(d.methods))
			for j, m := range d.methods {
				vals[j], ok[j] = s.stat(m, row.metric, row.largest)
			}
			bold := -1
			if row.metric == metrics.VarMeanAbs || row.metric == metrics.VarMaxAbs || row.metric == metrics.LogZErr {
				for j := range vals {
					if ok[j] && !math.IsNaN(vals[j]) && (bold < 0 || vals[j] < vals[bold]) {
						bold = j
					}
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %d |", label, s.label, len(s.models))
			for j := range vals {
				switch {
				case !ok[j]:
					b.WriteString(" — |")
				case j == bold:
					b.WriteString(" **" + hardNumber(row.metric, vals[j]) + "** |")
				default:
					b.WriteString(" " + hardNumber(row.metric, vals[j]) + " |")
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\nmean |ΔP(x_i)|: mean over the models of the mean over the variables of |b(x_i) − p(x_i)|; max |ΔP(x_i)|: the largest over every model and variable of the setting; ")
	b.WriteString("ln Z error: mean |ln Z − ln Ẑ|; seconds: mean per model (one core, on a shared machine); converged: the fraction of models whose run passed its method's own test (BP and GBP: the beliefs settled; RENN: the loss settled and, with the augmented Lagrangian, the beliefs are consistent). ")
	b.WriteString("**Bold**: the lowest error of the row. A run that did not converge is scored at its last iterate.\n")
	return b.String()
}

func (d *hardData) freeEnergyTable() string {
	var b strings.Builder
	b.WriteString("### Where each method stopped: its free energy beside −ln Z\n\n")
	b.WriteString(d.header("setting", "exact −ln Z"))
	for _, s := range d.settings {
		nl, n := s.negLogZ()
		exact := "—"
		if n > 0 {
			exact = significant(nl, 6)
		}
		fmt.Fprintf(&b, "| %s | %s |", s.label, exact)
		for _, m := range d.methods {
			f, gap, k := s.freeEnergy(m)
			if k == 0 {
				b.WriteString(" — |")
				continue
			}
			fmt.Fprintf(&b, " %s (%s) |", significant(f, 6), signed(gap))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nEach cell: the method's free energy F at the point where it stopped (converged or not), mean over the models, and in brackets the mean of F − (−ln Z). ")
	b.WriteString("F is each method's own: the naive mean-field free energy for mf (never below −ln Z), the Bethe free energy for bp and dbp, the region free energy of the setting's region graph for gbp and the RENN runs (neither is a bound); every method reports ln Z = −F, so the bracket is also its signed ln Z error. ")
	b.WriteString("A converged bp or dbp run is a fixed point of BP, a stationary point of the Bethe free energy; two such points of one model with different F are different fixed points.\n")
	return b.String()
}

func signed(v float64) string {
	s := formatNumber("", math.Abs(v))
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v < 0:
		return "−" + s
	}
	return "+" + s
}

func (d *hardData) fixedPointTable() string {
	var b strings.Builder
	b.WriteString("### Fixed points of BP and damped BP\n\n")
	b.WriteString("| setting | models | converged runs at a Bethe stationary point | both converged | to the same point | to different points | of those: the lower Bethe F more accurate | of those: dbp's F higher |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	var total fixedPointCounts
	for _, s := range d.settings {
		c := countFixedPoints(s)
		if c.compared == 0 {
			fmt.Fprintf(&b, "| %s | %d | — | — | — | — | — | — |\n", s.label, c.models)
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d of %d | %d | %d | %d | %d | %d |\n", s.label, c.models, c.stationary, c.converged, c.both, c.same, c.different, c.lowerFBetter, c.dbpHigher)
		total.models += c.models
		total.both += c.both
		total.same += c.same
		total.different += c.different
		total.lowerFBetter += c.lowerFBetter
		total.dbpHigher += c.dbpHigher
		total.converged += c.converged
		total.stationary += c.stationary
	}
	fmt.Fprintf(&b, "\nDamping leaves BP's fixed points where they are (a damped update is the undamped one mixed with the old message, so both stop at the same points), so when both converge on a model they have found fixed points of the same map. ")
	fmt.Fprintf(&b, "Two runs count as the same point when no variable belief differs by more than %g. ", FixedPointTol)
	fmt.Fprintf(&b, "Whether a run's beliefs are a fixed point is also measured, from its marginals alone: beliefs are a stationary point of the Bethe free energy (a BP fixed point) exactly when they are consistent and reparametrise the model, "+
		"Π_a b_a(x_a) / Π_i b_i(x_i)^(d_i−1) ∝ Π_a f_a(x_a) for every x (Wainwright, Jaakkola, Willsky 2003); the residual is the largest violation of either (probabilities; nats, on the spin coefficients of the log ratio), and a run counts as at a stationary point when it is at most %g. ", StationaryTol)
	fmt.Fprintf(&b, "Of the %d converged bp and dbp runs, %d are at a stationary point by this measure. ", total.converged, total.stationary)
	fmt.Fprintf(&b, "Over every setting: both converged on %d of %d models, to different points on %d", total.both, total.models, total.different)
	if total.different > 0 {
		fmt.Fprintf(&b, "; of these, the point of lower Bethe free energy was the more accurate on %d, and damped BP's point was the one of higher free energy on %d", total.lowerFBetter, total.dbpHigher)
	}
	b.WriteString(".\n")
	return b.String()
}

// modelTable compares bp, dbp and gbp model by model.
func (s *hardSetting) modelTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s, model by model\n\n", s.label)
	b.WriteString("| model | exact −ln Z | bp: converged, mean \\|ΔP\\|, F | dbp: converged, mean \\|ΔP\\|, F | gbp: converged, mean \\|ΔP\\|, F | Bethe residual: bp, dbp | bp against dbp |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	cell := func(m *hardModel, method string) string {
		r := m.runs[method]
		if r == nil || r.est == nil {
			return "—"
		}
		conv := "no"
		if r.est.Converged {
			conv = "yes"
		}
		return fmt.Sprintf("%s, %s, %s", conv, hardNumber(metrics.VarMeanAbs, r.metrics[metrics.VarMeanAbs]), significant(r.est.FreeEnergy, 6))
	}
	for _, m := range s.models {
		exact := "—"
		if m.exact {
			exact = significant(m.negLogZ, 6)
		}
		f := compareFixedPoints(m)
		res := "—"
		if f.ok {
			res = residualText(f.bpRes) + ", " + residualText(f.dbRes)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", m.name, exact, cell(m, "bp"), cell(m, "dbp"), cell(m, "gbp"), res, verdict(f))
	}
	c := countFixedPoints(s)
	fmt.Fprintf(&b, "\nF is the Bethe free energy for bp and dbp (the same function of the beliefs, so their values compare), the region free energy of the setting's region graph for gbp. The Bethe residual is the distance from a stationary point of the Bethe free energy defined above (at most %g: a BP fixed point). ", StationaryTol)
	fmt.Fprintf(&b, "bp and dbp both converged on %d of %d models: to the same point on %d, to different points on %d", c.both, c.models, c.same, c.different)
	if c.different > 0 {
		fmt.Fprintf(&b, " (the one of lower Bethe free energy the more accurate on %d of them; damped BP's the higher on %d, undamped BP's on %d)", c.lowerFBetter, c.dbpHigher, c.different-c.dbpHigher)
	}
	b.WriteString(".\n")
	return b.String()
}

func verdict(f fixedPoint) string {
	switch {
	case !f.ok:
		return "—"
	case !f.bpConv && !f.dbpConv:
		return "neither converged"
	case !f.bpConv:
		return "bp did not converge"
	case !f.dbpConv:
		return "dbp did not converge"
	case !f.different():
		return fmt.Sprintf("same fixed point (beliefs within %s)", hardNumber(metrics.VarMaxAbs, f.distance))
	}
	what := "two stationary points of the Bethe F"
	if !stationary(f.bpRes) || !stationary(f.dbRes) {
		what = "two different converged points, not both stationary"
	}
	if f.dbpF > f.bpF {
		return fmt.Sprintf("%s: dbp's F higher by %s", what, formatNumber("", f.dbpF-f.bpF))
	}
	return fmt.Sprintf("%s: bp's F higher by %s", what, formatNumber("", f.bpF-f.dbpF))
}

func residualText(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return strconv.FormatFloat(r, 'e', 0, 64)
}

// checks measures the hard-models claims of issue 19 for renn-mp: its mean
// |ΔP(x_i)| at most 1.2 times the better of GBP and renn-direct where
// either converges on every model, never above loopy BP's, and its time at
// most 10 times GBP's on grids where GBP converges on every model.
func (d *hardData) checks() string {
	const mp, gbp, direct, bp = "renn-mp", "gbp", "renn-direct", "bp"
	if !slices.Contains(d.methods, mp) {
		return ""
	}
	type tally struct {
		holds, n int
		fails    []string
	}
	var ratio, vsBP, speed tally
	for _, s := range d.settings {
		e, ok := s.stat(mp, metrics.VarMeanAbs, false)
		if !ok || math.IsNaN(e) {
			continue
		}
		ref, refOK := math.Inf(1), false
		for _, m := range []string{gbp, direct} {
			c, okc := s.stat(m, score.Converged, false)
			v, okv := s.stat(m, metrics.VarMeanAbs, false)
			if okc && okv && c == 1 && !math.IsNaN(v) {
				ref, refOK = min(ref, v), true
			}
		}
		if refOK {
			ratio.n++
			if e <= 1.2*ref {
				ratio.holds++
			} else {
				ratio.fails = append(ratio.fails, fmt.Sprintf("%s (%s against %s)", s.label, hardNumber(metrics.VarMeanAbs, e), hardNumber(metrics.VarMeanAbs, ref)))
			}
		}
		if v, ok := s.stat(bp, metrics.VarMeanAbs, false); ok && !math.IsNaN(v) {
			vsBP.n++
			if e <= v {
				vsBP.holds++
			} else {
				vsBP.fails = append(vsBP.fails, fmt.Sprintf("%s (%s against %s)", s.label, hardNumber(metrics.VarMeanAbs, e), hardNumber(metrics.VarMeanAbs, v)))
			}
		}
		if s.graph == "grid" {
			c, okc := s.stat(gbp, score.Converged, false)
			tg, okg := s.stat(gbp, score.Seconds, false)
			tm, okm := s.stat(mp, score.Seconds, false)
			if okc && okg && okm && c == 1 {
				speed.n++
				if tm <= 10*tg {
					speed.holds++
				} else {
					speed.fails = append(speed.fails, fmt.Sprintf("%s (%s s against %s s)", s.label, formatNumber(score.Seconds, tm), formatNumber(score.Seconds, tg)))
				}
			}
		}
	}
	line := func(text string, t tally) string {
		s := fmt.Sprintf("- %s: holds on %d of %d settings", text, t.holds, t.n)
		if len(t.fails) > 0 {
			s += "; not on " + strings.Join(t.fails, "; ")
		}
		return s + ".\n"
	}
	var b strings.Builder
	b.WriteString("### renn-mp against the targets of issue 19\n\n")
	b.WriteString(line("mean |ΔP(x_i)| at most 1.2 × the better of gbp and renn-direct, on the settings where either converged on every model", ratio))
	b.WriteString(line("mean |ΔP(x_i)| no worse than loopy BP's", vsBP))
	b.WriteString(line("seconds at most 10 × gbp's, on the grids where gbp converged on every model", speed))
	return b.String()
}

// modelOf is the model of factor rows with cards, and the factor beliefs
// facs (by factor id) laid out as its marginals.
func modelOf(cards []int32, factors []formats.FactorRow, vars [][]float64, facs map[int32][]float64) (*mrf.Model, mrf.Marginals) {
	m := &mrf.Model{}
	for _, c := range cards {
		m.Cards = append(m.Cards, int(c))
	}
	mg := mrf.Marginals{Vars: vars}
	for _, f := range factors {
		vs := make([]int, len(f.Vars))
		for i, v := range f.Vars {
			vs[i] = int(v)
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: vs, LogTable: f.LogTable})
		mg.Factors = append(mg.Factors, facs[f.FactorID])
	}
	return m, mg
}

// runTime says what the hard_* instances took: they are not counted in the
// paper's run time.
func (d *hardData) runTime() string { return sectionRunTime(d.rt, d.statusErr, HardPrefix) }

// sectionRunTime says what the instances of a section's stages (names
// beginning with prefix) took, with their status.
func sectionRunTime(rt RunTime, statusErr error, prefix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run time (not counted in the paper's, above): %d of %d instances of the %s* stages have completed", rt.Done, rt.Instances, prefix)
	if rt.Done > 0 {
		fmt.Fprintf(&b, ", in **%s** summed over the instances (one core each), between %s and %s (UTC)", formatDuration(rt.Seconds),
			rt.First.UTC().Format(time.DateTime), rt.Last.UTC().Format(time.DateTime))
	}
	b.WriteString(".")
	switch {
	case statusErr != nil:
		fmt.Fprintf(&b, " (Could not check whether they are current: %v.)", statusErr)
	case len(rt.Stale) > 0:
		fmt.Fprintf(&b, " **Stale** (their binary, flags or inputs changed since they ran): %s.", strings.Join(truncate(rt.Stale, 8), ", "))
	}
	var rows []string
	for _, st := range rt.Stages {
		if st.Seconds >= 60 || st.Done < st.Instances {
			rows = append(rows, fmt.Sprintf("| %s | %d / %d | %s | %s |\n", st.Stage, st.Done, st.Instances, formatDuration(st.Seconds), formatDuration(st.Max)))
		}
	}
	if len(rows) > 0 {
		b.WriteString(" The stages that took a minute or more, or have not finished:\n\n| stage | instances done | summed time | longest instance |\n|---|---:|---:|---:|\n")
		b.WriteString(strings.Join(rows, ""))
	} else {
		b.WriteString("\n")
	}
	return b.String()
}

// boundsTable is the bounds table over the hard settings and those of the
// bounds_* stages.
func (d *hardData) boundsTable() string {
	settings, ms := d.settings, slices.Clone(d.methods)
	if d.bounds != nil {
		settings = append(slices.Clone(settings), d.bounds.settings...)
		for _, s := range d.bounds.settings {
			for _, m := range s.models {
				for meth := range m.runs {
					if !slices.Contains(ms, meth) {
						ms = append(ms, meth)
					}
				}
			}
		}
		sortMethods(ms)
	}
	return boundsTable(settings, ms)
}

// classicMethods lists, with their registry summaries, the methods of ms
// that issue 22 added, or "" if none ran.
func classicMethods(ms []string) string {
	var parts []string
	for _, m := range ms {
		if !slices.Contains([]string{"trw", "dlgbp", "gibbs", "pt"}, m) {
			continue
		}
		if e, err := methods.Lookup(m); err == nil {
			parts = append(parts, fmt.Sprintf("%s (%s)", m, e.Summary))
		}
	}
	return strings.Join(parts, ", ")
}
