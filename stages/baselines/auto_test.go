package baselines

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// writeModels writes ms, numbered in order, as a models directory.
func writeModels(t *testing.T, out string, ms ...*mrf.Model) {
	t.Helper()
	var all []stageio.Model
	for i, m := range ms {
		all = append(all, stageio.Model{ID: int32(i), Info: mrf.Info{Name: "m" + string(rune('a'+i)), Graph: "uai", Source: "test"}, Model: m})
	}
	infos, rows := stageio.Rows(all)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	prov := formats.Provenance{Stage: "test"}
	if err := formats.WriteModelInfo(filepath.Join(out, formats.ModelInfoFile), infos, prov); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteModels(filepath.Join(out, formats.ModelsFile), rows, prov); err != nil {
		t.Fatal(err)
	}
}

// auto needs no --regions, writes its certificate and record, and a model
// where every method fails (Z = 0) loses its own run only.
func TestAuto(t *testing.T) {
	ninf := math.Inf(-1)
	contradiction := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{ninf, 0, 0, ninf}},
		{Vars: []int{0}, LogTable: []float64{0, ninf}},
		{Vars: []int{1}, LogTable: []float64{0, ninf}},
	}}
	edges, err := mrf.GridEdges(3, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	writeModels(t, models, mrf.RandomIsing(9, edges, 1, 1), contradiction)
	out, uai := filepath.Join(dir, "out"), filepath.Join(dir, "uai")
	var w strings.Builder
	p := Params{Models: models, Methods: []string{"auto"}, Set: []string{"auto.max_seconds=0.5"}, UAIOut: uai}
	if err := Run(context.Background(), p, out, &w); err != nil {
		t.Fatal(err)
	}
	est, _ := readOutputs(t, out)
	if len(est) != 1 || est[0].ModelID != 0 || est[0].Certificate != "exact" {
		t.Fatalf("estimates %+v, want model 0's, certified exact", est)
	}
	var params struct {
		Record struct {
			Chosen string `json:"chosen"`
			Reason string `json:"reason"`
		} `json:"record"`
	}
	if err := json.Unmarshal([]byte(est[0].Params), &params); err != nil || params.Record.Chosen != "exact" || params.Record.Reason == "" {
		t.Errorf("params %s (%v): want a record choosing exact", est[0].Params, err)
	}
	b, err := os.ReadFile(filepath.Join(uai, "auto", "ma.uai.MAR"))
	if err != nil || !strings.Contains(string(b), "c renn certificate: exact\n") {
		t.Errorf("MAR file (%v):\n%s\nwant the certificate line", err, b)
	}
	if s := w.String(); !strings.Contains(s, "1 of 2 runs failed") || !strings.Contains(s, "every method failed") {
		t.Errorf("summary %q", s)
	}
}

// A budget that is not a positive finite number is refused before any
// file is read.
func TestAutoBudgetRefused(t *testing.T) {
	for _, v := range []string{"0", "-1", "Inf", "NaN"} {
		p := Params{Models: "nowhere", Methods: []string{"auto"}, Set: []string{"auto.max_seconds=" + v}}
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), "max_seconds") {
			t.Errorf("max_seconds=%s: %v", v, err)
		}
	}
}
