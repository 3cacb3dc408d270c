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
	// path, cols and rows are its summary as read (the last file's path
	// and group columns, every file's rows), for the plots.
	path string
	cols []string
	rows []formats.SummaryRow
}

// readSummaries reads the summaries of the score stages among insts.
func (s *section) readSummaries(pt *part, insts []*instance) error {
	for _, stage := range stages(insts, "score") {
		pt.stages = append(pt.stages, stage)
		fam := &family{Name: familyOf(s.plan, stage, pt.prefix), Stage: stage}
		for _, inst := range s.plan.of(stage) {
			ok, err := s.readSummary(pt, fam, inst, fam.Stage+"|")
			if err != nil {
				return err
			}
			fam.Present = fam.Present || ok
		}
		s.data.families = append(s.data.families, fam)
	}
	return nil
}

// readSummary reads one instance's summary.parquet, its settings keyed
// with prefix; ok is false when it has not been written.
func (s *section) readSummary(pt *part, fam *family, inst *instance, prefix string) (ok bool, err error) {
	path := filepath.Join(inst.outDir, formats.SummaryFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	cols, rows, err := outputs.ReadSettingSummary(path)
	if err != nil {
		return false, err
	}
	fam.path, fam.cols = path, cols
	for _, r := range rows {
		fam.rows = append(fam.rows, r.SummaryRow)
		ps := paperSetting(r.Graph, r.Size, r.Gamma)
		g := s.data.setting(prefix+ps.key, func() *group {
			ps.family, ps.label = fam.Name, s.label(ps)
			return ps
		})
		o := slices.DeleteFunc(slices.Clone(s.data.find(g, "", r.Method)), func(o *obs) bool { return o.stage != fam.Stage })
		if len(o) == 0 {
			o = []*obs{s.data.add(newObs(pt.prefix, fam.Stage, g, "", r.Method))}
		}
		if _, dup := o[0].num[r.Metric]; dup {
			return false, fmt.Errorf("%s: %s %s %s given twice", path, ps.key, r.Method, r.Metric)
		}
		o[0].num[r.Metric], o[0].num[r.Metric+"_std"], o[0].num[r.Metric+"_n"] = r.Mean, r.Std, float64(r.N)
	}
	return true, nil
}

// familyOf names the family of a score stage by the weights its predictions
// read (the input stage given as --weights), else by the stage itself.
func familyOf(p *plan, stage, prefix string) string {
	for _, inst := range p.of(stage) {
		for _, pred := range inst.inputsOf("pred") {
			if w := pred.inputOf("weights"); w != nil {
				return w.stage
			}
		}
	}
	return strings.TrimPrefix(stage, prefix)
}

// label names a setting as the section's settings are named: "side", the
// side of a square grid (10x10), else graph and size.
func (s *section) label(g *group) string {
	if s.spec.Labels == "side" {
		if l := int(math.Round(math.Sqrt(float64(g.size)))); g.graph == "grid" && l*l == g.size {
			return fmt.Sprintf("%dx%d", l, l)
		}
		return fmt.Sprintf("%s n=%d", g.graph, g.size)
	}
	return g.label
}

// sortSettings orders the settings as the section says (Order).
func (s *section) sortSettings() {
	sort.SliceStable(s.data.settings, func(a, b int) bool {
		x, y := s.data.settings[a], s.data.settings[b]
		switch s.spec.Order {
		case "size":
			if x.graph != y.graph {
				return x.graph < y.graph
			}
			return x.size < y.size
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
		if hasPrefix(inst.stage, s.spec.Parts) {
			for _, m := range inst.inputsOf("models") {
				scored[m.stage] = true
			}
		}
	}
	pt := &part{prefix: "unscored"}
	for _, inst := range s.plan.insts {
		w, m := inst.inputOf("weights"), inst.inputOf("models")
		if w == nil || m == nil || scored[m.stage] {
			continue
		}
		scored[m.stage] = true
		if err := s.readUnscoredSet(pt, w.stage, m, ref); err != nil {
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
		if inst.inputOf("models") != m || inst.binary == "build-regions" {
			continue
		}
		done, err := outputs.ReadAnswers(inst.outDir, runs, &order)
		if err != nil || !done {
			return err
		}
	}
	if runs[ref] == nil {
		return nil
	}
	info, _, err := formats.ReadModelInfo(filepath.Join(m.outDir, formats.ModelInfoFile))
	if err != nil || len(info) == 0 {
		return err
	}
	g := &group{family: fam, key: m.stage, graph: info[0].Graph, size: len(info[0].Cards)}
	g.label = fmt.Sprintf("%s (%d)", s.label(g), len(info))
	g = s.data.setting(pt.prefix+m.stage, func() *group { return g })
	for _, method := range order {
		if err := s.compareAnswers(pt, g, method, runs[method], runs[ref], ref); err != nil {
			return fmt.Errorf("%s: %w", m.outDir, err)
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
	o := s.data.add(newObs(pt.prefix, "", g, "", method))
	o.num["seconds"] = secs
	if method != refName {
		o.num["ref_mean_abs"], o.num["ref_logz_rms"] = meanAbs, logzRMS
	}
	return nil
}
