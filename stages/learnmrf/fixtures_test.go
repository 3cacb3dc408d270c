package learnmrf

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/renn-go/renn/formats"
)

// runCurves runs the stage with p into out, logging to log, and returns
// the learning curves and provenance it wrote; an error fails the test.
func runCurves(t *testing.T, p Params, out string, log io.Writer) ([]formats.CurveRow, formats.Provenance) {
	t.Helper()
	if err := Run(context.Background(), p, out, log); err != nil {
		t.Fatal(err)
	}
	curves, prov, err := formats.ReadCurves(filepath.Join(out, formats.CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	return curves, prov
}
