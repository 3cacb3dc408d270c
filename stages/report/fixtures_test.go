package report

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/renn-go/renn/formats"
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

// readHiddenOf reads the hidden section's data of the plan of cfg.
func readHiddenOf(t *testing.T, cfg string) *hiddenData {
	t.Helper()
	_, hp := splitPrefix(loadPlan(t, cfg), HiddenPrefix)
	d, err := readHidden(hp, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}
