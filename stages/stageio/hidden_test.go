package stageio

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
)

// TestLoadModelsHidden checks that hidden variables travel through
// model_info and that bad ones are errors naming model_info.parquet.
func TestLoadModelsHidden(t *testing.T) {
	t.Parallel()
	m := mrf.Ising(3, []mrf.Edge{{I: 0, J: 1}, {I: 1, J: 2}}, []float64{0.1, 0.2, 0.3}, []float64{0.5, -0.5})
	for _, tt := range []struct {
		name   string
		hidden []int
		err    string
	}{
		{"ok", []int{1}, ""},
		{"none", nil, ""},
		{"out of range", []int{3}, "out of range"},
		{"unsorted", []int{2, 0}, "strictly increasing"},
		{"repeated", []int{1, 1}, "strictly increasing"},
		{"all", []int{0, 1, 2}, "every one"},
	} {
		dir := filepath.Join(t.TempDir(), "models")
		infos, rows := Rows([]Model{{ID: 0, Info: mrf.Info{Name: "m", Graph: "grid", Hidden: tt.hidden}, Model: m}})
		prov := formats.Provenance{Stage: "test", Version: "0", Inputs: map[string]string{}}
		err := Commit(dir,
			Output{Name: formats.ModelsFile, Write: func(p string) error { return formats.WriteModels(p, rows, prov) }},
			Output{Name: formats.ModelInfoFile, Write: func(p string) error { return formats.WriteModelInfo(p, infos, prov) }})
		if err != nil {
			t.Fatal(err)
		}
		ms, _, err := LoadModels(dir)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), formats.ModelInfoFile) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one naming %s and containing %q", tt.name, err, formats.ModelInfoFile, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(ms[0].Info.Hidden, tt.hidden) {
			t.Errorf("%s: hidden %v (%v), want %v", tt.name, ms[0].Info.Hidden, err, tt.hidden)
		}
	}
}
