package report

// Reading score stages model by model: scores.parquet, with the
// model_info and models of their models inputs, the exact ln Z of their
// truth inputs, and the estimates (and, for the methods a section
// compares, the marginals) of their pred inputs. Files are tied to models
// as score ties them: by the sha256 of models.parquet in their provenance.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
)

// shard is one models input of a score instance.
type shard struct {
	dir     string
	infos   map[int32]formats.ModelInfoRow
	factors map[int32][]formats.FactorRow
	order   []int32 // model ids in model_info order
	models  map[int32]*scored
}

// scored is one model of a shard: its exact -ln Z and every method's run.
type scored struct {
	info    formats.ModelInfoRow
	model   *mrf.Model
	negLogZ float64
	exact   bool
	// exactSeconds is exact inference's wall time on the model (truth).
	exactSeconds float64
	runs         map[string]*scoredRun
}

// scoredRun is one method's run on a model.
type scoredRun struct {
	metrics map[string]float64
	est     *formats.EstimateRow
	vars    [][]float64
	factors map[int32][]float64
	pred    *instance // the instance whose estimates est is
}

// scoreInstance is what one score instance read.
type scoreInstance struct {
	inst         *instance
	shards       []*shard
	byDir, bySHA map[string]*shard
}

// readScores reads the score instances among insts into part pt.
func (s *section) readScores(pt *part, insts []*instance) error {
	for _, inst := range insts {
		if inst.binary != "score" {
			continue
		}
		if !slices.Contains(pt.stages, inst.stage) {
			pt.stages = append(pt.stages, inst.stage)
		}
		if _, err := os.Stat(filepath.Join(inst.outDir, formats.ScoresFile)); errors.Is(err, fs.ErrNotExist) {
			pt.notRun = append(pt.notRun, inst.id)
			continue
		}
		si := &scoreInstance{inst: inst, byDir: map[string]*shard{}, bySHA: map[string]*shard{}}
		if err := si.read(s.plan.dir, s.spec.Beliefs); err != nil {
			return err
		}
		s.emit(pt, si)
	}
	return nil
}

func (si *scoreInstance) read(cfgDir string, beliefs []string) error {
	for _, in := range si.inst.inputsOf("models") {
		if err := si.readModels(in.outDir); err != nil {
			return err
		}
	}
	if len(si.shards) == 0 {
		return fmt.Errorf("stage %s: no models input, so its scores cannot be read model by model", si.inst.id)
	}
	if err := si.readScoreRows(cfgDir); err != nil {
		return err
	}
	for _, in := range si.inst.inputsOf("truth") {
		if err := si.readEstimates(in, true, nil); err != nil {
			return err
		}
	}
	for _, in := range si.inst.inputsOf("pred") {
		if err := si.readEstimates(in, false, beliefs); err != nil {
			return err
		}
	}
	return nil
}

func (si *scoreInstance) readModels(dir string) error {
	infos, _, err := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
	if err != nil {
		return err
	}
	mpath := filepath.Join(dir, formats.ModelsFile)
	sha, err := formats.FileSHA256(mpath)
	if err != nil {
		return err
	}
	factors, _, err := formats.ReadModels(mpath)
	if err != nil {
		return err
	}
	sh := &shard{dir: dir, infos: map[int32]formats.ModelInfoRow{}, factors: map[int32][]formats.FactorRow{}, models: map[int32]*scored{}}
	for _, f := range factors {
		sh.factors[f.ModelID] = append(sh.factors[f.ModelID], f)
	}
	for _, r := range infos {
		sh.infos[r.ModelID], sh.order = r, append(sh.order, r.ModelID)
	}
	si.byDir[filepath.Clean(dir)], si.bySHA[sha] = sh, sh
	si.shards = append(si.shards, sh)
	return nil
}

// model returns model id of sh, read by the file at path.
func (sh *shard) model(id int32, path string) (*scored, error) {
	if m := sh.models[id]; m != nil {
		return m, nil
	}
	info, ok := sh.infos[id]
	if !ok {
		return nil, fmt.Errorf("%s: model %d is not in %s", path, id, filepath.Join(sh.dir, formats.ModelInfoFile))
	}
	m := &scored{info: info, model: &mrf.Model{}, runs: map[string]*scoredRun{}}
	for _, c := range info.Cards {
		m.model.Cards = append(m.model.Cards, int(c))
	}
	for _, f := range sh.factors[id] {
		vs := make([]int, len(f.Vars))
		for i, v := range f.Vars {
			vs[i] = int(v)
		}
		m.model.Factors = append(m.model.Factors, mrf.Factor{Vars: vs, LogTable: f.LogTable})
	}
	sh.models[id] = m
	return m, nil
}

// run returns method's run on m.
func (m *scored) run(method string) *scoredRun {
	r := m.runs[method]
	if r == nil {
		r = &scoredRun{metrics: map[string]float64{}}
		m.runs[method] = r
	}
	return r
}

// answer is r as metrics compares answers, its factor beliefs in the
// model's order.
func (m *scored) answer(r *scoredRun) metrics.Answer {
	a := metrics.Answer{Converged: r.est.Converged, F: r.est.FreeEnergy, MeanAbs: r.metrics[metrics.VarMeanAbs], Beliefs: mrf.Marginals{Vars: r.vars}}
	for k := range m.model.Factors {
		a.Beliefs.Factors = append(a.Beliefs.Factors, r.factors[int32(k)])
	}
	return a
}

func (si *scoreInstance) readScoreRows(cfgDir string) error {
	path := filepath.Join(si.inst.outDir, formats.ScoresFile)
	rows, _, err := formats.ReadScores(path)
	if err != nil {
		return err
	}
	for _, r := range rows {
		dir := r.Models
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cfgDir, dir)
		}
		sh := si.byDir[filepath.Clean(dir)]
		if sh == nil {
			return fmt.Errorf("%s: model %d (%s) comes from %s, which is not a models input of stage %s", path, r.ModelID, r.Name, r.Models, si.inst.id)
		}
		m, err := sh.model(r.ModelID, path)
		if err != nil {
			return err
		}
		m.run(r.Method).metrics[r.Metric] = r.Value
	}
	return nil
}

// readEstimates reads the estimates of a truth (exact's ln Z) or pred
// input, and the marginals of the methods of beliefs. A method stage added
// to the score's inputs that has not run yet is skipped: the score, older
// than it, did not score it.
func (si *scoreInstance) readEstimates(from *instance, truth bool, beliefs []string) error {
	path := filepath.Join(from.outDir, formats.EstimatesFile)
	est, prov, err := formats.ReadEstimates(path)
	if errors.Is(err, fs.ErrNotExist) && !truth {
		return nil
	} else if err != nil {
		return err
	}
	sh, err := si.shardOf(path, prov)
	if err != nil {
		return err
	}
	wanted := false
	for i := range est {
		e := &est[i]
		if truth && e.Method != "exact" {
			continue
		}
		m, err := sh.model(e.ModelID, path)
		if err != nil {
			return err
		}
		if truth {
			m.negLogZ, m.exact, m.exactSeconds = -e.LogZ, true, e.Seconds
			continue
		}
		r := m.run(e.Method)
		r.est, r.pred = e, from
		wanted = wanted || slices.Contains(beliefs, e.Method)
	}
	if !wanted {
		return nil
	}
	return si.readBeliefs(filepath.Join(from.outDir, formats.MarginalsFile), beliefs)
}

func (si *scoreInstance) readBeliefs(path string, beliefs []string) error {
	marg, prov, err := formats.ReadMarginals(path)
	if err != nil {
		return err
	}
	sh, err := si.shardOf(path, prov)
	if err != nil {
		return err
	}
	for _, r := range marg {
		if !slices.Contains(beliefs, r.Method) {
			continue
		}
		m, err := sh.model(r.ModelID, path)
		if err != nil {
			return err
		}
		run := m.run(r.Method)
		switch n := len(m.info.Cards); {
		case r.Kind == "factor" && run.factors == nil:
			run.factors = map[int32][]float64{r.Index: r.Probs}
		case r.Kind == "factor":
			run.factors[r.Index] = r.Probs
		case r.Kind != "var":
		case r.Index < 0 || int(r.Index) >= n:
			return fmt.Errorf("%s: model %d method %s: variable %d out of range", path, r.ModelID, r.Method, r.Index)
		default:
			if run.vars == nil {
				run.vars = make([][]float64, n)
			}
			run.vars[r.Index] = r.Probs
		}
	}
	return nil
}

// shardOf finds the models a file was computed from by the sha256 of the
// models.parquet among its provenance inputs.
func (si *scoreInstance) shardOf(path string, prov formats.Provenance) (*shard, error) {
	var found *shard
	for in, sha := range prov.Inputs {
		if filepath.Base(in) != formats.ModelsFile {
			continue
		}
		sh := si.bySHA[sha]
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

// emit adds the models of a score instance to the section's data, shard
// by shard in model_info order, each in the setting of its family (its
// name without the trailing index).
func (s *section) emit(pt *part, si *scoreInstance) {
	for _, sh := range si.shards {
		for _, id := range sh.order {
			m := sh.models[id]
			if m == nil {
				continue
			}
			key := settingKey(m.info.Name)
			if s.spec.Labels == "shape" {
				key = settingKey(strings.TrimSuffix(m.info.Name, ".uai"))
			}
			g := s.data.setting(pt.prefix+key, func() *group {
				if s.spec.Labels == "shape" {
					kind, label := shapeLabel(key)
					return &group{key: key, label: label, graph: kind, size: len(m.info.Cards)}
				}
				return &group{key: key, label: settingLabel(m.info), graph: m.info.Graph, size: len(m.info.Cards), gamma: m.info.Gamma}
			})
			mo := s.modelObs(pt, si.inst.stage, g, m)
			for _, method := range sortedKeys(m.runs) {
				if r := m.runs[method]; r.est != nil || len(r.metrics) > 0 {
					s.runObs(pt, si.inst.stage, g, m, method, r)
				}
			}
			s.compareRuns(mo, m)
		}
	}
}

// modelObs returns the facts of model m itself (its exact ln Z and shape),
// made on first reading.
func (s *section) modelObs(pt *part, stage string, g *group, m *scored) *obs {
	o := s.data.find(g, m.info.Name, "")
	if len(o) == 0 {
		o = []*obs{s.data.add(newObs(pt.prefix, stage, g, m.info.Name, ""))}
		sh := mrf.ShapeOf(m.model)
		o[0].num["n_vars"], o[0].num["n_factors"], o[0].num["max_arity"] = float64(len(m.info.Cards)), float64(sh.Factors), float64(sh.MaxArity)
		o[0].num["zeros"], o[0].num["observed"] = float64(sh.Zeros), float64(sh.Observed)
		o[0].text["states"] = strconv.Itoa(sh.MaxCard)
		if sh.MinCard != sh.MaxCard {
			o[0].text["states"] = fmt.Sprintf("%d-%d", sh.MinCard, sh.MaxCard)
		}
	}
	if m.exact {
		o[0].num["neg_log_z"], o[0].num["log_z_exact"], o[0].num["exact_seconds"] = m.negLogZ, -m.negLogZ, m.exactSeconds
	}
	return o[0]
}

// runObs adds one run: its scores, its estimate and what follows from it
// and the exact ln Z (the free energy's gap, a bound's slack).
func (s *section) runObs(pt *part, stage string, g *group, m *scored, method string, r *scoredRun) {
	col := s.column(method, r)
	for _, o := range s.data.find(g, m.info.Name, col) {
		if r.pred != nil && o.text["pred"] == r.pred.id {
			return // one run scored by two stages
		}
		col += " [" + stage + "]"
	}
	o := s.data.add(newObs(pt.prefix, stage, g, m.info.Name, col))
	for k, v := range r.metrics {
		o.num[k] = v
	}
	e := r.est
	if e == nil {
		return
	}
	if r.pred != nil {
		o.text["pred"] = r.pred.id
	}
	o.num["est_converged"], o.num["free_energy"], o.num["log_z"] = b2f(e.Converged), e.FreeEnergy, e.LogZ
	var p struct {
		Regions string
		Check   *json.RawMessage
		Options struct {
			MaxSeconds float64 `json:"max_seconds"`
		}
	}
	json.Unmarshal([]byte(e.Params), &p)
	if p.Regions != "" {
		o.text["regions"] = p.Regions
	}
	budgetFacts(o, p.Options.MaxSeconds, e.Certificate, m)
	if p.Check != nil {
		o.num["check_recorded"] = 1
	}
	var check string
	o.num["check_failed"] = b2f(p.Check != nil && json.Unmarshal(*p.Check, &check) == nil && check != "")
	if !m.exact {
		return
	}
	o.num["fe_exact"], o.num["fe_gap"] = e.FreeEnergy, e.FreeEnergy-m.negLogZ
	if entry, err := methods.Lookup(method); err == nil && (entry.LogZ == methods.LogZLowerBound || entry.LogZ == methods.LogZUpperBound) {
		slack := e.LogZ + m.negLogZ // ln Ẑ − ln Z
		if entry.LogZ == methods.LogZLowerBound {
			slack = -slack
		}
		o.num["bound_slack"] = slack
	}
}

// column names a run's column: its method, and, in a section whose
// columns say so, the region scheme its regions input asked for when not
// auto.
func (s *section) column(method string, r *scoredRun) string {
	if s.spec.Columns == "method+scheme" && r.pred != nil {
		if reg := r.pred.inputOf("regions"); reg != nil && reg.flags["scheme"] != "" && reg.flags["scheme"] != "auto" {
			return method + " (" + reg.flags["scheme"] + ")"
		}
	}
	return method
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

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, methods.Compare)
	return keys
}

// budgetFacts records a run's time budget (its max_seconds option, when
// set), whether exact inference finished within it (exact_fits, and its
// complement exact_over), and its certificate, one fact per kind (1 for
// the run's, 0 for the others), so that tables and claims count them.
func budgetFacts(o *obs, budget float64, cert string, m *scored) {
	if budget > 0 {
		o.num["budget"] = budget
		if m.exact {
			fits := m.exactSeconds <= budget
			o.num["exact_fits"], o.num["exact_over"] = b2f(fits), b2f(!fits)
		}
	}
	if cert == "" {
		return
	}
	o.text["certificate"] = cert
	for _, c := range []string{infer.CertExact, infer.CertConverged, infer.CertMonteCarlo, infer.CertBounds, infer.CertNone} {
		o.num["cert_"+strings.ReplaceAll(c, "-", "_")] = b2f(c == cert)
	}
}
