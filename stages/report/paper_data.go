package report

// The paper's section (sections/paper.toml, reads "paper"): what the
// paper's tables (paper.toml) read, the summaries of their score stages
// and the curves of their learn-mrf stages, and the paper's numbers.

import (
	"fmt"
	"slices"

	"github.com/renn-go/renn/stages/stageio/outputs"
)

// learnPart is the part of the paper's learning runs.
const learnPart = "learn"

// readPaper reads the score stages and learn-mrf stages the paper's
// tables name (optional learning stages where the config has them), in
// order of first use (so errors come out the same way every run), and the
// plot sources: a family per score stage (its summary), part learnPart,
// and a part per table (the paper's numbers).
func (s *section) readPaper() error {
	var scoreStages, learnStages []string
	for i := range s.spec.paper.Tables {
		t := &s.spec.paper.Tables[i]
		for _, st := range t.OptionalSources {
			if len(s.reader().Of(st)) > 0 {
				t.Sources = append(t.Sources, st)
			}
		}
		for _, st := range t.Sources {
			if !slices.Contains(learnStages, st) {
				learnStages = append(learnStages, st)
			}
		}
		for _, c := range t.Columns {
			if len(t.Sources) == 0 {
				scoreStages = append(scoreStages, t.partOf(c))
			}
		}
	}
	for _, stage := range append(scoreStages, s.spec.PlotSources...) {
		if len(s.reader().Of(stage)) == 0 {
			return fmt.Errorf("the pipeline config has no stage %q", stage)
		}
		if s.family(stage) != nil {
			continue // read for an earlier table
		}
		if err := s.reader().ReadFamily(&newPart(stage).Progress, stage, stage, ""); err != nil {
			return err
		}
	}
	learn := newPart(learnPart)
	s.data.parts = append(s.data.parts, learn)
	if len(learnStages) > 0 {
		if err := s.reader().ReadLearning(&learn.Progress, learnStages); err != nil {
			return err
		}
	}
	s.addPaper()
	return nil
}

// addPaper adds the paper's numbers: a run per column of each table, a
// summary cell (mean, std: NaN where the paper gives none, one count) and
// its text as printed, the facts named by the row's metric.
func (s *section) addPaper() {
	for _, t := range s.spec.paper.Tables {
		for _, r := range t.Rows {
			g := s.data.Setting(r.setting(), func() *group { return outputs.SettingOf(r.Graph, r.Size, r.Gamma) })
			for j, c := range t.Columns {
				if v := r.values[j]; v.OK {
					f := outputs.NewFact(paperPart(t.Number), "", g, "", c.Name)
					if found := s.data.FindIn([]string{f.Part}, g, "", c.Name); len(found) > 0 {
						f = found[0] // one fact per cell, as a score stage's summary
					} else {
						s.data.Add(f)
					}
					f.Text[r.Metric], f.Num[r.Metric], f.Num[r.Metric+"_std"], f.Num[r.Metric+"_n"] = v.Text, v.Mean, v.Std, 1
				}
			}
		}
	}
}

// family is the score stage's summary read, or nil.
func (s *section) family(stage string) *family {
	if i := slices.IndexFunc(s.data.Families, func(f *family) bool { return f.Stage == stage }); i >= 0 {
		return s.data.Families[i]
	}
	return nil
}
