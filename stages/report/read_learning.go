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
	"strconv"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio/outputs"
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
			pt.Instances++
			path := filepath.Join(inst.OutDir, formats.CurvesFile)
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				pt.NotRun = append(pt.NotRun, inst.ID)
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
		return fmt.Errorf("stage %s: needs models and samples inputs to be read as learning", inst.ID)
	}
	settings, err := r.readSettings(models.OutDir)
	if err != nil {
		return err
	}
	runs, err := outputs.ReadLearningCurves(path)
	if err != nil {
		return err
	}
	for _, run := range runs {
		g, ok := settings[run.ModelID]
		if !ok {
			return fmt.Errorf("%s: model %d is not in %s", path, run.ModelID, filepath.Join(models.OutDir, formats.ModelInfoFile))
		}
		o := newObs(pt.Prefix, inst.Stage, g, strconv.Itoa(int(run.ModelID)), run.Method)
		o.Seed, o.Curve, o.Secs = inst.Shard[seedKey], run.NLL, run.Seconds
		secs := 0.0
		for _, x := range run.Seconds {
			secs += x
		}
		o.Num["nll"], o.Num["epoch_seconds"] = o.Curve[len(o.Curve)-1], secs/float64(len(run.Seconds))
		r.d.Add(o)
	}
	if !r.samplesRead[samples.OutDir] {
		r.samplesRead[samples.OutDir] = true
		return r.readTrueNLL(pt, samples.OutDir, settings)
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
		ps.Hidden = len(in.Hidden)
		out[in.ModelID] = r.d.Setting(ps.Key, func() *group { return ps })
	}
	return out, nil
}

// readTrueNLL adds the true model's test NLL of every model in dir: the
// mean of -log p over its test split.
func (r *learnReader) readTrueNLL(pt *part, dir string, settings map[int32]*group) error {
	ids, nll, err := outputs.TestNLL(dir)
	if err != nil {
		return err
	}
	for _, id := range ids {
		g, ok := settings[id]
		if !ok {
			return fmt.Errorf("%s: model %d has samples but is not among the models", filepath.Join(dir, formats.SamplesFile), id)
		}
		o := r.d.Add(newObs(pt.Prefix, "", g, strconv.Itoa(int(id)), trueMethod))
		o.Num["nll"] = nll[id]
	}
	return nil
}
