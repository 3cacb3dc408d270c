package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/cli/clitest"
	"github.com/renn-go/renn/stages/samplemodel"
)

// --methods trw runs TRW, its options set by name, and records its ln Z
// at or above the exact one with the bound diagnostics.
func TestTRW(t *testing.T) {
	dir := t.TempDir()
	models, truth, out := filepath.Join(dir, "m"), filepath.Join(dir, "exact"), filepath.Join(dir, "out")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 2}, models); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--models", models, "--methods", "exact", "--out", truth},
		{"--models", models, "--methods", "trw,mf", "--set", "trw.trees=4", "--set", "trw.damping=0.25", "--out", out},
	} {
		if code, stderr := clitest.Run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	exact, _, err := formats.ReadEstimates(filepath.Join(truth, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	lnZ := map[int32]float64{}
	for _, r := range exact {
		lnZ[r.ModelID] = r.LogZ
	}
	seen := 0
	for _, r := range est {
		if r.Method != "trw" {
			continue
		}
		seen++
		var p struct {
			Options     map[string]float64 `json:"options"`
			Diagnostics map[string]float64 `json:"diagnostics"`
		}
		if err := json.Unmarshal([]byte(r.Params), &p); err != nil {
			t.Fatal(err)
		}
		if p.Options["trees"] != 4 || p.Options["damping"] != 0.25 {
			t.Errorf("model %d: options %v, want trees 4 and damping 0.25", r.ModelID, p.Options)
		}
		if _, ok := p.Diagnostics["primal_logz"]; !ok {
			t.Errorf("model %d: no primal_logz among the diagnostics %v", r.ModelID, p.Diagnostics)
		}
		if !(r.LogZ >= lnZ[r.ModelID]-1e-9) {
			t.Errorf("model %d: TRW ln Z %v below exact %v", r.ModelID, r.LogZ, lnZ[r.ModelID])
		}
	}
	if seen != 2 {
		t.Errorf("%d trw rows, want 2", seen)
	}
}
