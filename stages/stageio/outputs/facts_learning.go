package outputs

// Reading learn-mrf stages: every model's learning run (its test NLL and
// seconds per epoch) from curves.parquet, the setting of its model from
// model_info.parquet of the models input, and the true model's test NLL
// from samples.parquet of the samples input.

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/renn-go/renn/formats"
)

// TrueMethod is the method of the true model's test NLL.
const TrueMethod = "true"

// ReadLearning reads the curves of every instance of the learn-mrf stages
// into pt: a run obs per model and method (facts nll, the last epoch's
// test NLL, and epoch_seconds, the mean seconds per epoch), and the true
// model's test NLL of every model (method TrueMethod, fact nll).
func (s *Reader) ReadLearning(pt *Progress, stages []string) error {
	if s.samplesRead == nil {
		s.samplesRead = map[string]bool{}
	}
	for _, stage := range stages {
		insts := s.Of(stage)
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
			if err := s.readInstance(pt, inst, path); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Reader) readInstance(pt *Progress, inst *Instance, path string) error {
	models, samples := inst.InputOf("models"), inst.InputOf("samples")
	if models == nil || samples == nil {
		return fmt.Errorf("stage %s: needs models and samples inputs to be read as learning", inst.ID)
	}
	settings, err := s.readSettings(models.OutDir)
	if err != nil {
		return err
	}
	runs, err := ReadLearningCurves(path)
	if err != nil {
		return err
	}
	for _, run := range runs {
		g, ok := settings[run.ModelID]
		if !ok {
			return fmt.Errorf("%s: model %d is not in %s", path, run.ModelID, filepath.Join(models.OutDir, formats.ModelInfoFile))
		}
		o := NewFact(pt.Prefix, inst.Stage, g, strconv.Itoa(int(run.ModelID)), run.Method)
		o.Seed, o.Curve, o.Secs = inst.Shard["seed"], run.NLL, run.Seconds // the learning seed's shard key
		secs := 0.0
		for _, x := range run.Seconds {
			secs += x
		}
		o.Num["nll"], o.Num["epoch_seconds"] = o.Curve[len(o.Curve)-1], secs/float64(len(run.Seconds))
		s.Add(o)
	}
	if !s.samplesRead[samples.OutDir] {
		s.samplesRead[samples.OutDir] = true
		return s.readTrueNLL(pt, samples.OutDir, settings)
	}
	return nil
}

// readSettings reads the setting of every model of a models directory.
func (s *Reader) readSettings(dir string) (map[int32]*Setting, error) {
	infos, _, err := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
	if err != nil {
		return nil, err
	}
	out := make(map[int32]*Setting, len(infos))
	for _, in := range infos {
		ps := SettingOf(in.Graph, len(in.Cards), in.Gamma)
		ps.Hidden = len(in.Hidden)
		out[in.ModelID] = s.Setting(ps.Key, func() *Setting { return ps })
	}
	return out, nil
}

// readTrueNLL adds the true model's test NLL of every model in dir: the
// mean of -log p over its test split.
func (s *Reader) readTrueNLL(pt *Progress, dir string, settings map[int32]*Setting) error {
	nll, err := TestNLL(dir)
	if err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(nll)) {
		g, ok := settings[id]
		if !ok {
			return fmt.Errorf("%s: model %d has samples but is not among the models", filepath.Join(dir, formats.SamplesFile), id)
		}
		o := s.Add(NewFact(pt.Prefix, "", g, strconv.Itoa(int(id)), TrueMethod))
		o.Num["nll"] = nll[id]
	}
	return nil
}
