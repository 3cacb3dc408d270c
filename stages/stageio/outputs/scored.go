package outputs

// Reading what a score instance scored, model by model: scores.parquet,
// with the model_info and models of its models inputs, the exact ln Z of
// its truth inputs, and the estimates (and, for the methods asked for, the
// marginals) of its pred inputs. Files are tied to models as score ties
// them: by the sha256 of models.parquet in their provenance.

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// scoredShard is one models input of a score instance: its models, in
// model_info order.
type scoredShard struct {
	dir    string
	order  []*ScoredModel
	models map[int32]*ScoredModel
}

// ScoredModel is one model of a shard: its exact -ln Z and every method's
// run.
type ScoredModel struct {
	Info    formats.ModelInfoRow
	Model   *mrf.Model
	NegLogZ float64
	Exact   bool
	// ExactSeconds is exact inference's wall time on the model (truth).
	ExactSeconds float64
	Runs         map[string]*ScoredRun
}

// ScoredRun is one method's run on a model.
type ScoredRun struct {
	Metrics map[string]float64
	Est     *formats.EstimateRow
	Vars    [][]float64
	Factors map[int32][]float64
	Pred    *Instance // the pred input whose estimates Est is
}

type scoreReader struct {
	inst         *Instance
	cfgDir       string   // relative models paths in scores.parquet start here
	beliefs      []string // methods whose marginals are read
	shards       []*scoredShard
	byDir, bySHA map[string]*scoredShard
}

// readScored reads what score instance inst scored (the marginals of the
// methods of beliefs). A pred input that has not run yet is skipped: the
// score, older than it, did not score it.
func readScored(inst *Instance, cfgDir string, beliefs []string) ([]*scoredShard, error) {
	r := &scoreReader{inst: inst, cfgDir: cfgDir, beliefs: beliefs, byDir: map[string]*scoredShard{}, bySHA: map[string]*scoredShard{}}
	for _, in := range inst.Inputs["models"] {
		if err := r.readModels(in.OutDir); err != nil {
			return nil, err
		}
	}
	if len(r.shards) == 0 {
		return nil, fmt.Errorf("stage %s: no models input, so its scores cannot be read model by model", inst.ID)
	}
	if err := r.readScoreRows(); err != nil {
		return nil, err
	}
	for _, in := range inst.Inputs["truth"] {
		if err := r.readEstimates(in.OutDir, nil); err != nil {
			return nil, err
		}
	}
	for _, in := range inst.Inputs["pred"] {
		if err := r.readEstimates(in.OutDir, in); err != nil {
			return nil, err
		}
	}
	return r.shards, nil
}

func (r *scoreReader) readModels(dir string) error {
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
	models, err := stageio.FromRows(infos, factors)
	if err != nil {
		return fmt.Errorf("%s: %w", mpath, err)
	}
	sh := &scoredShard{dir: dir, models: map[int32]*ScoredModel{}}
	for _, m := range models {
		sh.models[m.ID] = &ScoredModel{Model: m.Model, Runs: map[string]*ScoredRun{}}
	}
	for _, in := range infos {
		m := sh.models[in.ModelID]
		m.Info, sh.order = in, append(sh.order, m)
	}
	r.byDir[filepath.Clean(dir)], r.bySHA[sha] = sh, sh
	r.shards = append(r.shards, sh)
	return nil
}

// model returns model id of sh, read by the file at path.
func (sh *scoredShard) model(id int32, path string) (*ScoredModel, error) {
	if m := sh.models[id]; m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("%s: model %d is not in %s", path, id, filepath.Join(sh.dir, formats.ModelInfoFile))
}

// Run returns method's run on m, made empty on first use.
func (m *ScoredModel) Run(method string) *ScoredRun {
	r := m.Runs[method]
	if r == nil {
		r = &ScoredRun{Metrics: map[string]float64{}, Factors: map[int32][]float64{}}
		m.Runs[method] = r
	}
	return r
}

func (r *scoreReader) readScoreRows() error {
	path := filepath.Join(r.inst.OutDir, formats.ScoresFile)
	rows, _, err := formats.ReadScores(path)
	if err != nil {
		return err
	}
	for _, row := range rows {
		dir := row.Models
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(r.cfgDir, dir)
		}
		sh := r.byDir[filepath.Clean(dir)]
		if sh == nil {
			return fmt.Errorf("%s: model %d (%s) comes from %s, which is not a models input of stage %s", path, row.ModelID, row.Name, row.Models, r.inst.ID)
		}
		m, err := sh.model(row.ModelID, path)
		if err != nil {
			return err
		}
		m.Run(row.Method).Metrics[row.Metric] = row.Value
	}
	return nil
}

// readEstimates reads the estimates of a truth (pred nil: exact's ln Z)
// or pred input, and the marginals of the methods of Beliefs.
func (r *scoreReader) readEstimates(dir string, pred *Instance) error {
	path := filepath.Join(dir, formats.EstimatesFile)
	est, prov, err := formats.ReadEstimates(path)
	if errors.Is(err, fs.ErrNotExist) && pred != nil {
		return nil
	} else if err != nil {
		return err
	}
	sh, err := r.shardOf(path, prov)
	if err != nil {
		return err
	}
	wanted := false
	for i := range est {
		e := &est[i]
		if pred == nil && e.Method != "exact" {
			continue
		}
		m, err := sh.model(e.ModelID, path)
		if err != nil {
			return err
		}
		if pred == nil {
			m.NegLogZ, m.Exact, m.ExactSeconds = -e.LogZ, true, e.Seconds
			continue
		}
		run := m.Run(e.Method)
		run.Est, run.Pred = e, pred
		wanted = wanted || slices.Contains(r.beliefs, e.Method)
	}
	if !wanted {
		return nil
	}
	return r.readBeliefs(filepath.Join(dir, formats.MarginalsFile))
}

func (r *scoreReader) readBeliefs(path string) error {
	marg, prov, err := formats.ReadMarginals(path)
	if err != nil {
		return err
	}
	sh, err := r.shardOf(path, prov)
	if err != nil {
		return err
	}
	for _, row := range marg {
		if !slices.Contains(r.beliefs, row.Method) {
			continue
		}
		m, err := sh.model(row.ModelID, path)
		if err != nil {
			return err
		}
		run := m.Run(row.Method)
		switch n := len(m.Info.Cards); {
		case row.Kind == "factor":
			run.Factors[row.Index] = row.Probs
		case row.Kind != "var":
		case row.Index < 0 || int(row.Index) >= n:
			return fmt.Errorf("%s: model %d method %s: variable %d out of range", path, row.ModelID, row.Method, row.Index)
		default:
			if run.Vars == nil {
				run.Vars = make([][]float64, n)
			}
			run.Vars[row.Index] = row.Probs
		}
	}
	return nil
}

// shardOf finds the models a file was computed from by the sha256 of the
// models.parquet among its provenance inputs.
func (r *scoreReader) shardOf(path string, prov formats.Provenance) (*scoredShard, error) {
	var found *scoredShard
	for in, sha := range prov.Inputs {
		if filepath.Base(in) != formats.ModelsFile {
			continue
		}
		sh := r.bySHA[sha]
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
