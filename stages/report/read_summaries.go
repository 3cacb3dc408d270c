package report

// Reading score stages' summaries (a mean, std and count per setting,
// method and metric), and the answers of method stages on models no score
// stage scored, compared with a reference method's.

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// family is one score stage of a summaries section: the settings it
// scored, named after the network its predictions read.
type family struct {
	Name, Stage string
	Present     bool // its summary has been written
	// Path, cols and rows are its summary as read (the last file's Path
	// and group columns, every file's rows), for the plots.
	Path string
	Cols []string
	Rows []formats.SummaryRow
}

// readSummaries reads the summaries of the score stages among insts.
func (s *section) readSummaries(pt *part, insts []*instance) error {
	for _, stage := range stages(insts, "score") {
		pt.Stages = append(pt.Stages, stage)
		fam := &family{Name: familyOf(s.plan, stage, pt.Prefix), Stage: stage}
		for _, inst := range s.plan.of(stage) {
			ok, err := s.readSummary(pt, fam, inst, fam.Stage+"|")
			if err != nil {
				return err
			}
			fam.Present = fam.Present || ok
		}
		s.data.Families = append(s.data.Families, fam)
	}
	return nil
}

// readSummary reads one instance's summary.parquet, its settings keyed
// with prefix; ok is false when it has not been written.
func (s *section) readSummary(pt *part, fam *family, inst *instance, prefix string) (ok bool, err error) {
	path := filepath.Join(inst.OutDir, formats.SummaryFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	cols, rows, err := outputs.ReadSettingSummary(path)
	if err != nil {
		return false, err
	}
	fam.Path, fam.Cols = path, cols
	for _, r := range rows {
		fam.Rows = append(fam.Rows, r.SummaryRow)
		ps := paperSetting(r.Graph, r.Size, r.Gamma)
		g := s.data.Setting(prefix+ps.Key, func() *group {
			ps.Family, ps.Label = fam.Name, s.label(ps)
			return ps
		})
		o := slices.DeleteFunc(slices.Clone(s.data.Find(g, "", r.Method)), func(o *obs) bool { return o.Stage != fam.Stage })
		if len(o) == 0 {
			o = []*obs{s.data.Add(newObs(pt.Prefix, fam.Stage, g, "", r.Method))}
		}
		if _, dup := o[0].Num[r.Metric]; dup {
			return false, fmt.Errorf("%s: %s %s %s given twice", path, ps.Key, r.Method, r.Metric)
		}
		o[0].Num[r.Metric], o[0].Num[r.Metric+"_std"], o[0].Num[r.Metric+"_n"] = r.Mean, r.Std, float64(r.N)
	}
	return true, nil
}

// familyOf names the family of a score stage by the weights its predictions
// read (the input stage given as --weights), else by the stage itself.
func familyOf(p *plan, stage, prefix string) string {
	for _, inst := range p.of(stage) {
		for _, pred := range inst.inputsOf("pred") {
			if w := pred.inputOf("weights"); w != nil {
				return w.Stage
			}
		}
	}
	return strings.TrimPrefix(stage, prefix)
}

// label names a setting as the section's settings are named: "side", the
// side of a square grid (10x10), else graph and size.
func (s *section) label(g *group) string {
	if s.spec.Labels == "side" {
		if l := int(math.Round(math.Sqrt(float64(g.Size)))); g.Graph == "grid" && l*l == g.Size {
			return fmt.Sprintf("%dx%d", l, l)
		}
		return fmt.Sprintf("%s n=%d", g.Graph, g.Size)
	}
	return g.Label
}

// sortSettings orders the settings as the section says (Order).
func (s *section) sortSettings() {
	sort.SliceStable(s.data.Settings, func(a, b int) bool {
		x, y := s.data.Settings[a], s.data.Settings[b]
		switch s.spec.Order {
		case "size":
			if x.Graph != y.Graph {
				return x.Graph < y.Graph
			}
			return x.Size < y.Size
		case "paper":
			return x.less(y)
		}
		return false
	})
}

// readUnscored finds the models stages that a stage reading --weights ran
// on but no score stage of the section scored, and compares every method's
// answers there with those of the method ref. A set whose runs have not
// all completed is left out.
func (s *section) readUnscored(ref string) error {
	scored := map[string]bool{}
	for _, inst := range s.plan.insts {
		if hasPrefix(inst.Stage, s.spec.Parts) {
			for _, m := range inst.inputsOf("models") {
				scored[m.Stage] = true
			}
		}
	}
	pt := &part{Prefix: "unscored"}
	for _, inst := range s.plan.insts {
		w, m := inst.inputOf("weights"), inst.inputOf("models")
		if w == nil || m == nil || scored[m.Stage] {
			continue
		}
		scored[m.Stage] = true
		if err := s.readUnscoredSet(pt, w.Stage, m, ref); err != nil {
			return err
		}
	}
	s.data.parts = append(s.data.parts, pt)
	return nil
}

func (s *section) readUnscoredSet(pt *part, fam string, m *instance, ref string) error {
	runs := map[string]*outputs.Answers{}
	var order []string
	for _, inst := range s.plan.insts {
		if inst.inputOf("models") != m || inst.Binary == "build-regions" {
			continue
		}
		done, err := outputs.ReadAnswers(inst.OutDir, runs, &order)
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
	g := &group{Family: fam, Key: m.Stage, Graph: info[0].Graph, Size: len(info[0].Cards)}
	g.Label = fmt.Sprintf("%s (%d)", s.label(g), len(info))
	g = s.data.Setting(pt.Prefix+m.Stage, func() *group { return g })
	for _, method := range order {
		if err := s.compareAnswers(pt, g, method, runs[method], runs[ref], ref); err != nil {
			return fmt.Errorf("%s: %w", m.OutDir, err)
		}
	}
	return nil
}

// compareAnswers adds a method's facts on a set against the reference's
// answers (metrics.Answers.Against): ref_mean_abs, ref_logz_rms, seconds.
func (s *section) compareAnswers(pt *part, g *group, method string, r, ref *outputs.Answers, refName string) error {
	meanAbs, logzRMS, secs, n, err := r.Against(ref)
	if err != nil || n == 0 {
		if err != nil {
			err = fmt.Errorf("%s against %s: %w", method, refName, err)
		}
		return err
	}
	o := s.data.Add(newObs(pt.Prefix, "", g, "", method))
	o.Num["seconds"] = secs
	if method != refName {
		o.Num["ref_mean_abs"], o.Num["ref_logz_rms"] = meanAbs, logzRMS
	}
	return nil
}
