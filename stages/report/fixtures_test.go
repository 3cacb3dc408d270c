package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// appendStages appends stages (TOML) to the config file cfg.
func appendStages(t *testing.T, cfg, stages string) {
	t.Helper()
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(stages); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeCurveRun writes rows as the curves.parquet of a finished learn-mrf
// run in dir, stamped as started at started and taking seconds.
func writeCurveRun(t *testing.T, dir string, rows []formats.CurveRow, started time.Time, seconds float64) {
	t.Helper()
	if err := formats.WriteCurves(filepath.Join(dir, formats.CurvesFile), rows, prov); err != nil {
		t.Fatal(err)
	}
	writeStamp(t, dir, started, seconds)
}

// readHiddenOf reads the hidden section of the plan of cfg.
func readHiddenOf(t *testing.T, cfg string) *section {
	t.Helper()
	return sectionOf(t, "hidden", cfg)
}

// readSection reads the declared section name from the plan of cfg.
func readSection(name, cfg string) (*section, error) {
	spec, err := loadSection(name)
	if err != nil {
		return nil, err
	}
	return newSection(spec, SectionParams{Config: cfg})
}

func sectionOf(t *testing.T, name, cfg string) *section {
	t.Helper()
	s, err := readSection(name, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func markdownOf(t *testing.T, s *section) string {
	t.Helper()
	doc, err := s.markdown()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// emptySection is the declared section name without data, to add runs to.
func emptySection(t *testing.T, name string, prefixes ...string) *section {
	t.Helper()
	spec, err := loadSection(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := prepare(spec, &dataset{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prefixes {
		s.data.parts = append(s.data.parts, newPart(p))
	}
	return s
}

// scored is a model a score stage scored, with its runs.
type scored = outputs.ScoredModel

// addModel adds a model and its runs to s in the setting labelled label of
// part prefix, as reading a score stage does.
func addModel(s *section, prefix, label string, m *scored) {
	g := s.data.Setting(prefix+label, func() *group { return &group{Key: label, Label: label} })
	s.reader().AddScored(&newPart(prefix).Progress, "test", g, m)
	s.data.SortMethods()
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
