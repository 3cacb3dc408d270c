package outputs

// Reading learn-mrf stages: every model's learning run (its test NLL and
// seconds per epoch) from curves.parquet, the setting of its model from
// model_info.parquet of the models input, and the true model's test NLL
// from samples.parquet of the samples input.

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/renn-go/renn/core/metrics"
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

// readInstance adds the runs of the curves.parquet at path, in the order
// they first appear, each in epoch order whatever the file's row order.
func (s *Reader) readInstance(pt *Progress, inst *Instance, path string) error {
	models, samples := inst.InputOf("models"), inst.InputOf("samples")
	if models == nil || samples == nil {
		return fmt.Errorf("stage %s: needs models and samples inputs to be read as learning", inst.ID)
	}
	settings, err := s.readSettings(models.OutDir)
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
	runs, order := map[key]*Fact{}, []*Fact{}
	for _, row := range rows {
		if k := (key{row.ModelID, row.Method}); runs[k] == nil {
			g, ok := settings[row.ModelID]
			if !ok {
				return fmt.Errorf("%s: model %d is not in %s", path, row.ModelID, filepath.Join(models.OutDir, formats.ModelInfoFile))
			}
			o := NewFact(pt.Prefix, inst.Stage, g, strconv.Itoa(int(row.ModelID)), row.Method)
			o.Run = &metrics.LearningRun{Model: o.Model, Seed: inst.Shard["seed"]} // the learning seed's shard key
			runs[k], order = o, append(order, o)
		}
	}
	slices.SortStableFunc(rows, func(a, b formats.CurveRow) int { return cmp.Compare(a.Iteration, b.Iteration) })
	for _, row := range rows {
		r := runs[key{row.ModelID, row.Method}].Run
		r.NLL, r.Seconds = append(r.NLL, row.TestNLL), append(r.Seconds, row.Seconds)
	}
	for _, o := range order {
		o.Num["nll"], o.Num["epoch_seconds"] = o.Run.NLL[len(o.Run.NLL)-1], metrics.Mean(o.Run.Seconds)
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
	path := filepath.Join(dir, formats.SamplesFile)
	rows, _, err := formats.ReadSamples(path)
	if err != nil {
		return err
	}
	nll, count := map[int32]float64{}, map[int32]float64{}
	for _, row := range rows {
		if row.Split == "test" {
			nll[row.ModelID], count[row.ModelID] = nll[row.ModelID]-row.LogP, count[row.ModelID]+1
		}
	}
	for _, id := range slices.Sorted(maps.Keys(nll)) {
		g, ok := settings[id]
		if !ok {
			return fmt.Errorf("%s: model %d has samples but is not among the models", path, id)
		}
		s.Add(NewFact(pt.Prefix, "", g, strconv.Itoa(int(id)), TrueMethod)).Num["nll"] = nll[id] / count[id]
	}
	return nil
}

// A learning section's table rows, derived from the learn-mrf runs read
// (ReadLearning): per setting and method, the test NLL and its gap to a
// reference method's, seed by seed (metrics.PairBySeed).

// TrueModel is the row of the true model's test NLL in a learning
// section's tables and plots (from the runs of TrueMethod).
const TrueModel = "true model"

// InParts reports whether one of facts is of parts (nil: any).
func InParts(facts []*Fact, parts []string) bool {
	return slices.ContainsFunc(facts, func(o *Fact) bool { return len(parts) == 0 || slices.Contains(parts, o.Part) })
}

// MethodsIn are the methods with facts of parts (nil: any), in order.
func (d *Store) MethodsIn(parts []string) []string {
	return slices.DeleteFunc(slices.Clone(d.Methods), func(m string) bool { return !InParts(d.Find(nil, "", m), parts) })
}

// SettingsIn are the settings with facts of parts (nil: any), in order.
func (d *Store) SettingsIn(parts []string) []*Setting {
	return slices.DeleteFunc(slices.Clone(d.Settings), func(g *Setting) bool { return !InParts(d.BySet[g], parts) })
}

// Runs are the learning runs of part of method on g.
func (d *Store) Runs(part string, g *Setting, method string) []metrics.LearningRun {
	var out []metrics.LearningRun
	for _, o := range d.FindIn([]string{part}, g, "", method) {
		if o.Run != nil {
			out = append(out, *o.Run)
		}
	}
	return out
}

// SummariseLearning adds, for every setting and method of part, the facts
// of its table row: the test NLL at the last epoch, over the last tail
// epochs and at the best (nll_last, nll_tail, nll_best) and the gaps to
// the reference (gap_last, ..., text written by gapText), each a mean over
// the seeds paired with the reference's (else over its own seeds, without
// gaps), the seeds, the epochs and the mean seconds per epoch; and the
// true model's test NLL (method TrueModel).
func (d *Store) SummariseLearning(part, reference string, tail int, gapText func([]float64) string) {
	measures := map[string]func(metrics.RunNLL) float64{"last": metrics.LastOf, "tail": metrics.TailOf, "best": metrics.BestOf}
	for _, g := range d.SettingsIn([]string{part}) {
		if t, ok := Aggregate(d.FindIn([]string{part}, g, "", TrueMethod), "nll", "mean"); ok {
			d.Add(NewFact(part, "", g, "", TrueModel)).Num["nll_last"] = t
		}
		for _, m := range d.MethodsIn([]string{part}) {
			runs := d.Runs(part, g, m)
			if len(runs) == 0 {
				continue
			}
			o := NewFact(part, "", g, "", m)
			p := metrics.PairBySeed(runs, d.Runs(part, g, reference), tail, nil)
			nlls := p.NLL
			if len(p.Seeds) == 0 {
				own, seeds := metrics.BySeed(runs)
				for _, seed := range seeds {
					nlls = append(nlls, metrics.MeanNLL(own[seed], tail))
				}
			}
			for name, f := range measures {
				o.Num["nll_"+name], o.Text["gap_"+name] = metrics.Mean(metrics.Field(nlls, f)), "—"
				if len(p.Gap) > 0 {
					o.Text["gap_"+name] = gapText(metrics.Field(p.Gap, f))
				}
			}
			for _, r := range runs {
				o.Num["epochs"] = max(o.Num["epochs"], float64(len(r.NLL)))
			}
			o.Num["seeds"] = float64(len(nlls))
			o.Num["s_epoch"], _ = Aggregate(d.FindIn([]string{part}, g, "", m), "epoch_seconds", "mean")
			d.Add(o)
		}
	}
}
