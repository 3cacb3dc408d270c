package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
)

// setting is a family of models: graph, number of variables, gamma.
type setting struct {
	graph string
	size  int
	gamma float64
}

func (s setting) String() string {
	return fmt.Sprintf("%s n=%d γ=%s", s.graph, s.size, strconv.FormatFloat(s.gamma, 'g', -1, 64))
}

func (s setting) less(t setting) bool {
	if s.graph != t.graph {
		return s.graph > t.graph // grid before complete, as the paper
	}
	if s.size != t.size {
		return s.size < t.size
	}
	return s.gamma < t.gamma
}

// stat is one of our numbers: mean ± population std over n models.
type stat struct {
	ok        bool
	mean, std float64
	n         int
}

func statOf(xs []float64) stat {
	if len(xs) == 0 {
		return stat{}
	}
	s := metrics.Summarize(xs)
	return stat{ok: true, mean: s.Mean, std: s.Std, n: s.N}
}

type cellKey struct {
	setting
	method, metric string
}

// summaryData is the summary.parquet of one score stage.
type summaryData struct {
	stage     string
	path      string
	present   bool // false: the stage has not written it (not run)
	groupCols []string
	rows      []formats.SummaryRow
	cells     map[cellKey]stat
}

// readSummary reads the summary of a score stage of the plan. A stage that
// has not run yet is not an error; a summary that cannot be read is.
func readSummary(plan *pipeline.Plan, stage string) (*summaryData, error) {
	insts := instancesOf(plan, stage)
	if len(insts) == 0 {
		return nil, fmt.Errorf("the pipeline config has no stage %q", stage)
	}
	d := &summaryData{stage: stage, cells: map[cellKey]stat{}}
	for _, inst := range insts {
		path := filepath.Join(inst.OutDir, formats.SummaryFile)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		cols, rows, _, err := formats.ReadSummary(path)
		if err != nil {
			return nil, err
		}
		idx := map[string]int{}
		for _, c := range []string{"graph", "size", "gamma"} {
			k := slices.Index(cols, c)
			if k < 0 {
				return nil, fmt.Errorf("%s: no %s group column (have %v): score it with --group=graph,size,gamma", path, c, cols)
			}
			idx[c] = k
		}
		d.present, d.path = true, path
		d.groupCols, d.rows = cols, append(d.rows, rows...)
		for _, r := range rows {
			size, err1 := strconv.Atoi(r.Group[idx["size"]])
			gamma, err2 := 0.0, error(nil)
			if g := r.Group[idx["gamma"]]; g != "" { // blank: imported models have no gamma
				gamma, err2 = strconv.ParseFloat(g, 64)
			}
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%s: row %s %s: size %q or gamma %q is not a number", path, r.Method, r.Metric, r.Group[idx["size"]], r.Group[idx["gamma"]])
			}
			k := cellKey{setting{r.Group[idx["graph"]], size, gamma}, r.Method, r.Metric}
			if _, dup := d.cells[k]; dup {
				return nil, fmt.Errorf("%s: %s %s %s given twice", path, k.setting, k.method, k.metric)
			}
			d.cells[k] = stat{ok: !math.IsNaN(r.Mean), mean: r.Mean, std: r.Std, n: int(r.N)}
		}
	}
	return d, nil
}

func instancesOf(plan *pipeline.Plan, stage string) []*pipeline.Instance {
	var out []*pipeline.Instance
	for _, inst := range plan.Instances {
		if inst.Stage.Name == stage {
			out = append(out, inst)
		}
	}
	return out
}

// TrueMethod is the column of the true model's test NLL in the learning
// tables.
const TrueMethod = "true"

// learnData are the learning curves of the learn-mrf stages.
type learnData struct {
	// nll is the test NLL after learning (the last epoch) over the models
	// of a setting, by method; method TrueMethod is the true model's.
	nll map[cellKey]stat
	// epochSeconds is the mean seconds per epoch over the models.
	epochSeconds map[cellKey]stat
	// curves holds, per setting and method, each model's test NLL per
	// epoch; trueNLL the true model's test NLL of each model.
	curves  map[setting]map[string][][]float64
	trueNLL map[setting][]float64
	// runs holds every model's run per setting and method: its test NLL
	// and seconds per epoch, for comparisons at equal wall time.
	runs map[cellKey][]learnRun
	// instances counts the learn-mrf instances, and missing lists those
	// without curves.parquet yet.
	instances int
	missing   []string
}

// learnRun is one model's learning run: the test NLL and the seconds of
// every epoch, in order.
type learnRun struct {
	model int32
	// seed is the value of the instance's seed shard key (learn-mrf
	// --seed), "" when its stage has none.
	seed         string
	nll, seconds []float64
}

// readLearning reads curves.parquet of every instance of the given
// learn-mrf stages, with model_info.parquet of their models input (the
// setting) and samples.parquet of their samples input (the true NLL).
func readLearning(plan *pipeline.Plan, stages []string) (*learnData, error) {
	d := &learnData{nll: map[cellKey]stat{}, epochSeconds: map[cellKey]stat{},
		curves: map[setting]map[string][][]float64{}, trueNLL: map[setting][]float64{}, runs: map[cellKey][]learnRun{}}
	finals := map[cellKey][]float64{}
	perEpoch := map[cellKey][]float64{}
	samplesRead := map[string]bool{}
	for _, stage := range stages {
		insts := instancesOf(plan, stage)
		if len(insts) == 0 {
			return nil, fmt.Errorf("the pipeline config has no stage %q", stage)
		}
		for _, inst := range insts {
			d.instances++
			path := filepath.Join(inst.OutDir, formats.CurvesFile)
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				d.missing = append(d.missing, inst.ID)
				continue
			}
			seed := shardValue(inst, seedKey)
			var modelsDir, samplesDir string
			for _, in := range inst.Inputs {
				switch in.Flag {
				case "models":
					modelsDir = in.From.OutDir
				case "samples":
					samplesDir = in.From.OutDir
				}
			}
			if modelsDir == "" || samplesDir == "" {
				return nil, fmt.Errorf("stage %s: needs models and samples inputs to be read as learning", inst.ID)
			}
			settings, err := readSettings(modelsDir)
			if err != nil {
				return nil, err
			}
			rows, _, err := formats.ReadCurves(path)
			if err != nil {
				return nil, err
			}
			type mkey struct {
				id     int32
				method string
			}
			byModel := map[mkey][]formats.CurveRow{}
			var keys []mkey
			for _, r := range rows {
				k := mkey{r.ModelID, r.Method}
				if _, ok := byModel[k]; !ok {
					keys = append(keys, k)
				}
				byModel[k] = append(byModel[k], r)
			}
			for _, k := range keys {
				s, ok := settings[k.id]
				if !ok {
					return nil, fmt.Errorf("%s: model %d is not in %s", path, k.id, filepath.Join(modelsDir, formats.ModelInfoFile))
				}
				rs := byModel[k]
				sort.Slice(rs, func(a, b int) bool { return rs[a].Iteration < rs[b].Iteration })
				curve := make([]float64, len(rs))
				epochSecs := make([]float64, len(rs))
				secs := 0.0
				for e, r := range rs {
					curve[e] = r.TestNLL
					epochSecs[e] = r.Seconds
					secs += r.Seconds
				}
				ck := cellKey{setting: s, method: k.method}
				d.runs[ck] = append(d.runs[ck], learnRun{model: k.id, seed: seed, nll: curve, seconds: epochSecs})
				finals[ck] = append(finals[ck], curve[len(curve)-1])
				perEpoch[ck] = append(perEpoch[ck], secs/float64(len(rs)))
				if d.curves[s] == nil {
					d.curves[s] = map[string][][]float64{}
				}
				d.curves[s][k.method] = append(d.curves[s][k.method], curve)
			}
			if !samplesRead[samplesDir] {
				samplesRead[samplesDir] = true
				if err := d.readTrueNLL(samplesDir, settings); err != nil {
					return nil, err
				}
			}
		}
	}
	for k, xs := range finals {
		d.nll[k] = statOf(xs)
	}
	for k, xs := range perEpoch {
		d.epochSeconds[k] = statOf(xs)
	}
	for s, xs := range d.trueNLL {
		d.nll[cellKey{setting: s, method: TrueMethod}] = statOf(xs)
	}
	return d, nil
}

// readSettings reads the setting of every model of a models directory.
func readSettings(dir string) (map[int32]setting, error) {
	infos, _, err := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
	if err != nil {
		return nil, err
	}
	out := make(map[int32]setting, len(infos))
	for _, in := range infos {
		out[in.ModelID] = setting{graph: in.Graph, size: len(in.Cards), gamma: in.Gamma}
	}
	return out, nil
}

// readTrueNLL adds the true model's test NLL of every model in samplesDir:
// the mean of -log p over its test split.
func (d *learnData) readTrueNLL(dir string, settings map[int32]setting) error {
	path := filepath.Join(dir, formats.SamplesFile)
	rows, _, err := formats.ReadSamples(path)
	if err != nil {
		return err
	}
	sum, count := map[int32]float64{}, map[int32]int{}
	for _, r := range rows {
		if r.Split == "test" {
			sum[r.ModelID] -= r.LogP
			count[r.ModelID]++
		}
	}
	ids := make([]int32, 0, len(sum))
	for id := range sum {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s, ok := settings[id]
		if !ok {
			return fmt.Errorf("%s: model %d has samples but is not among the models", path, id)
		}
		d.trueNLL[s] = append(d.trueNLL[s], sum[id]/float64(count[id]))
	}
	return nil
}
