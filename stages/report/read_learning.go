package report

// Reading learn-mrf stages: every model's learning run (its test NLL and
// seconds per epoch) from curves.parquet, the setting of its model from
// model_info.parquet of the models input, and the true model's test NLL
// from samples.parquet of the samples input.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/renn-go/renn/formats"
)

// trueMethod is the method of the true model's test NLL.
const trueMethod = "true"

// learnReader reads learning runs into a dataset.
type learnReader struct {
	d           *dataset
	plan        *plan
	samplesRead map[string]bool
}

// readLearning reads the curves of every instance of the learn-mrf stages
// into pt: a run obs per model and method (facts nll, the last epoch's
// test NLL, and epoch_seconds, the mean seconds per epoch), and the true
// model's test NLL of every model (method trueMethod, fact nll).
func (r *learnReader) read(pt *part, stages []string) error {
	if r.samplesRead == nil {
		r.samplesRead = map[string]bool{}
	}
	for _, stage := range stages {
		insts := r.plan.of(stage)
		if len(insts) == 0 {
			return fmt.Errorf("the pipeline config has no stage %q", stage)
		}
		for _, inst := range insts {
			pt.instances++
			path := filepath.Join(inst.outDir, formats.CurvesFile)
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				pt.notRun = append(pt.notRun, inst.id)
				continue
			}
			if err := r.readInstance(pt, inst, path); err != nil {
				return err
			}
		}
	}
	return nil
}

func (r *learnReader) readInstance(pt *part, inst *instance, path string) error {
	models, samples := inst.inputOf("models"), inst.inputOf("samples")
	if models == nil || samples == nil {
		return fmt.Errorf("stage %s: needs models and samples inputs to be read as learning", inst.id)
	}
	settings, err := r.readSettings(models.outDir)
	if err != nil {
		return err
	}
	rows, _, err := formats.ReadCurves(path)
	if err != nil {
		return err
	}
	type key struct {
		id     int32
		method string
	}
	byRun := map[key][]formats.CurveRow{}
	var keys []key
	for _, row := range rows {
		k := key{row.ModelID, row.Method}
		if _, ok := byRun[k]; !ok {
			keys = append(keys, k)
		}
		byRun[k] = append(byRun[k], row)
	}
	for _, k := range keys {
		g, ok := settings[k.id]
		if !ok {
			return fmt.Errorf("%s: model %d is not in %s", path, k.id, filepath.Join(models.outDir, formats.ModelInfoFile))
		}
		rs := byRun[k]
		sort.Slice(rs, func(a, b int) bool { return rs[a].Iteration < rs[b].Iteration })
		o := newObs(pt.prefix, inst.stage, g, strconv.Itoa(int(k.id)), k.method)
		o.seed = inst.shard[seedKey]
		secs := 0.0
		for _, row := range rs {
			o.curve, o.secs = append(o.curve, row.TestNLL), append(o.secs, row.Seconds)
			secs += row.Seconds
		}
		o.num["nll"], o.num["epoch_seconds"] = o.curve[len(o.curve)-1], secs/float64(len(rs))
		r.d.add(o)
	}
	if !r.samplesRead[samples.outDir] {
		r.samplesRead[samples.outDir] = true
		return r.readTrueNLL(pt, samples.outDir, settings)
	}
	return nil
}

// seedKey is the shard key (and learn-mrf flag) of the learning seed.
const seedKey = "seed"

// readSettings reads the setting of every model of a models directory.
func (r *learnReader) readSettings(dir string) (map[int32]*group, error) {
	infos, _, err := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
	if err != nil {
		return nil, err
	}
	out := make(map[int32]*group, len(infos))
	for _, in := range infos {
		ps := paperSetting(in.Graph, len(in.Cards), in.Gamma)
		ps.hidden = len(in.Hidden)
		out[in.ModelID] = r.d.setting(ps.key, func() *group { return ps })
	}
	return out, nil
}

// readTrueNLL adds the true model's test NLL of every model in dir: the
// mean of -log p over its test split.
func (r *learnReader) readTrueNLL(pt *part, dir string, settings map[int32]*group) error {
	path := filepath.Join(dir, formats.SamplesFile)
	rows, _, err := formats.ReadSamples(path)
	if err != nil {
		return err
	}
	sum, count := map[int32]float64{}, map[int32]int{}
	for _, row := range rows {
		if row.Split == "test" {
			sum[row.ModelID] -= row.LogP
			count[row.ModelID]++
		}
	}
	ids := make([]int32, 0, len(sum))
	for id := range sum {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		g, ok := settings[id]
		if !ok {
			return fmt.Errorf("%s: model %d has samples but is not among the models", path, id)
		}
		o := r.d.add(newObs(pt.prefix, "", g, strconv.Itoa(int(id)), trueMethod))
		o.num["nll"] = sum[id] / float64(count[id])
	}
	return nil
}
