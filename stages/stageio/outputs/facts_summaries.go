package outputs

// Reading score stages' summaries (a mean, std and count per setting,
// method and metric), and the answers of method stages on models no score
// stage scored, compared with a reference method's.

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/renn-go/renn/formats"
)

// Family is one score stage of a summaries section: the settings it
// scored, named after the network its predictions read.
type Family struct {
	Name, Stage string
	Present     bool // its summary has been written
	// Path, cols and rows are its summary as read (the last file's Path
	// and group columns, every file's rows), for the plots.
	Path string
	Cols []string
	Rows []formats.SummaryRow
}

// ReadSummaries reads the summaries of the score stages among insts, a
// family each, its settings its own.
func (s *Reader) ReadSummaries(pt *Progress, insts []*Instance) error {
	for _, stage := range Stages(insts, "score") {
		pt.Stages = append(pt.Stages, stage)
		if err := s.ReadFamily(pt, stage, s.familyOf(stage, pt.Prefix), stage+"|"); err != nil {
			return err
		}
	}
	return nil
}

// ReadFamily reads the summaries of every instance of a score stage
// (those written) into a family of that name, as facts of pt, its
// settings keyed with prefix.
func (s *Reader) ReadFamily(pt *Progress, stage, name, prefix string) error {
	fam := &Family{Name: name, Stage: stage}
	s.Families = append(s.Families, fam)
	for _, inst := range s.Of(stage) {
		path := filepath.Join(inst.OutDir, formats.SummaryFile)
		cols, rows, err := ReadSettingSummary(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		fam.Present, fam.Path, fam.Cols = true, path, cols
		for _, r := range rows {
			fam.Rows = append(fam.Rows, r.SummaryRow)
			ps := r.Set
			g := s.Setting(prefix+ps.Key, func() *Setting {
				ps.Family, ps.Label = fam.Name, s.Label(ps)
				return ps
			})
			o := slices.DeleteFunc(slices.Clone(s.Find(g, "", r.Method)), func(o *Fact) bool { return o.Stage != fam.Stage })
			if len(o) == 0 {
				o = []*Fact{s.Add(NewFact(pt.Prefix, fam.Stage, g, "", r.Method))}
			}
			if _, dup := o[0].Num[r.Metric]; dup {
				return fmt.Errorf("%s: %s %s %s given twice", path, ps.Key, r.Method, r.Metric)
			}
			o[0].Num[r.Metric], o[0].Num[r.Metric+"_std"], o[0].Num[r.Metric+"_n"] = r.Mean, r.Std, float64(r.N)
		}
	}
	return nil
}

// familyOf names the family of a score stage by the weights its predictions
// read (the input stage given as --weights), else by the stage itself.
func (s *Reader) familyOf(stage, prefix string) string {
	for _, inst := range s.Of(stage) {
		for _, pred := range inst.Inputs["pred"] {
			if w := pred.InputOf("weights"); w != nil {
				return w.Stage
			}
		}
	}
	return strings.TrimPrefix(stage, prefix)
}

// ReadUnscored finds the models stages that a stage reading --weights ran
// on but no score stage of the reader's parts scored, and compares every method's
// answers there with those of the method ref. A set whose runs have not
// all completed is left out.
func (s *Reader) ReadUnscored(ref string) (*Progress, error) {
	scored := map[string]bool{}
	for _, inst := range s.Insts {
		if HasPrefix(inst.Stage, s.Parts) {
			for _, m := range inst.Inputs["models"] {
				scored[m.Stage] = true
			}
		}
	}
	pt := &Progress{Prefix: "unscored"}
	for _, inst := range s.Insts {
		w, m := inst.InputOf("weights"), inst.InputOf("models")
		if w == nil || m == nil || scored[m.Stage] {
			continue
		}
		scored[m.Stage] = true
		if err := s.readUnscoredSet(pt, w.Stage, m, ref); err != nil {
			return nil, err
		}
	}
	return pt, nil
}

func (s *Reader) readUnscoredSet(pt *Progress, fam string, m *Instance, ref string) error {
	runs := map[string]*Answers{}
	var order []string
	for _, inst := range s.Insts {
		if inst.InputOf("models") != m || inst.Binary == "build-regions" {
			continue
		}
		done, err := ReadAnswers(inst.OutDir, runs, &order)
		if err != nil || !done {
			return err
		}
	}
	if runs[ref] == nil {
		return nil
	}
	info, _, err := formats.ReadModelInfo(filepath.Join(m.OutDir, formats.ModelInfoFile))
	if err != nil || len(info) == 0 {
		return err
	}
	g := &Setting{Family: fam, Key: m.Stage, Graph: info[0].Graph, Size: len(info[0].Cards)}
	g.Label = fmt.Sprintf("%s (%d)", s.Label(g), len(info))
	g = s.Setting(pt.Prefix+m.Stage, func() *Setting { return g })
	for _, method := range order {
		if err := s.CompareAnswers(pt, g, method, runs[method], runs[ref], ref); err != nil {
			return fmt.Errorf("%s: %w", m.OutDir, err)
		}
	}
	return nil
}

// CompareAnswers adds a method's facts on a set against the reference's
// answers (metrics.Answers.Against): ref_mean_abs, ref_logz_rms, seconds.
func (s *Reader) CompareAnswers(pt *Progress, g *Setting, method string, r, ref *Answers, refName string) error {
	meanAbs, logzRMS, secs, n, err := r.Against(ref)
	if err != nil || n == 0 {
		if err != nil {
			err = fmt.Errorf("%s against %s: %w", method, refName, err)
		}
		return err
	}
	o := s.Add(NewFact(pt.Prefix, "", g, "", method))
	o.Num["seconds"] = secs
	if method != refName {
		o.Num["ref_mean_abs"], o.Num["ref_logz_rms"] = meanAbs, logzRMS
	}
	return nil
}
