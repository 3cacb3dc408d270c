package stageio

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
)

// uaiTestModel has 3 variables; variable 1 is observed in state 2 (as
// sample-model uai imports evidence) and variable 2's unary factor excludes
// one of its two states (a zero potential, not evidence, but the same
// restriction).
func uaiTestModel(name string) Model {
	inf := math.Inf(-1)
	m := &mrf.Model{Cards: []int{2, 3, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{0, 1, 2, 3, 4, 5}},
		{Vars: []int{2}, LogTable: []float64{inf, 0.5}},
	}}
	if err := m.Observe(1, 2); err != nil {
		panic(err)
	}
	return Model{ID: 4, Info: mrf.Info{Name: name, Graph: "uai"}, Model: m}
}

// uaiTestRows are one method's marginals of uaiTestModel: mass on excluded
// states too, as a method that ignores them might return.
func uaiTestRows(method string) ([]formats.MarginalRow, formats.EstimateRow) {
	vars := [][]float64{{0.25, 0.75}, {0.1, 0.2, 0.7}, {0.4, 0.6}}
	var rows []formats.MarginalRow
	for i, p := range vars {
		rows = append(rows, formats.MarginalRow{ModelID: 4, Method: method, Kind: "var", Index: int32(i), Probs: p})
	}
	rows = append(rows, formats.MarginalRow{ModelID: 4, Method: method, Kind: "factor", Index: 0, Probs: make([]float64, 6)})
	return rows, formats.EstimateRow{ModelID: 4, Method: method, LogZ: 2 * math.Ln10}
}

func TestUAIOutputs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	models := []Model{uaiTestModel("net.uai")}
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, method := range []string{"bp", "mf"} {
		r, e := uaiTestRows(method)
		marg, est = append(marg, r...), append(est, e)
	}
	outs, err := UAIOutputs(out, true, models, marg, est)
	if err != nil {
		t.Fatal(err)
	}
	if err := Commit(filepath.Join(dir, "parquet"), outs...); err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.25, 0.75}, {0, 0, 1}, {0, 1}}
	for _, method := range []string{"bp", "mf"} {
		got, err := formats.ReadMARFile(filepath.Join(out, method, "net.uai.MAR"), models[0].Model.Cards)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: MAR %v, want %v (restricted variables as point masses)", method, got, want)
		}
		z, err := formats.ReadPRFile(filepath.Join(out, method, "net.uai.PR"))
		if err != nil || math.Abs(z-2) > 1e-15 {
			t.Errorf("%s: PR %v, %v; want 2", method, z, err)
		}
	}
	// The rows themselves are left as they were.
	if marg[1].Probs[2] != 0.7 {
		t.Errorf("rows changed: %v", marg[1].Probs)
	}

	// One method, no subdirectory.
	r, e := uaiTestRows("exact")
	flat := filepath.Join(dir, "flat")
	if outs, err = UAIOutputs(flat, false, models, r, []formats.EstimateRow{e}); err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || outs[0].Name != "net.uai.MAR" || outs[1].Name != "net.uai.PR" || outs[0].Dir != flat {
		t.Errorf("outputs %+v", outs)
	}
	if outs, err = UAIOutputs("", false, models, r, []formats.EstimateRow{e}); outs != nil || err != nil {
		t.Errorf("no directory: %v, %v", outs, err)
	}
}

func TestUAIOutputsErrors(t *testing.T) {
	r, e := uaiTestRows("bp")
	two := []Model{uaiTestModel("a"), uaiTestModel("a.uai")}
	two[1].ID = 5
	r5, e5 := uaiTestRows("bp")
	for i := range r5 {
		r5[i].ModelID = 5
	}
	e5.ModelID = 5
	tests := []struct {
		name   string
		models []Model
		marg   []formats.MarginalRow
		est    []formats.EstimateRow
		want   string
	}{
		{"path in the name", []Model{uaiTestModel("../x")}, r, []formats.EstimateRow{e}, `model name "../x" cannot name a UAI result file`},
		{"empty name", []Model{uaiTestModel(".uai")}, r, []formats.EstimateRow{e}, `model name ".uai" cannot name`},
		{"clash", two, append(r, r5...), []formats.EstimateRow{e, e5}, "models 4 and 5 would both write a.uai.MAR"},
		{"missing marginal", []Model{uaiTestModel("a")}, r[1:], []formats.EstimateRow{e}, "no marginal of 2 states for variable 0"},
		{"unknown model", nil, r, []formats.EstimateRow{e}, "estimate of unknown model 4"},
	}
	for _, tc := range tests {
		_, err := UAIOutputs("dir", false, tc.models, tc.marg, tc.est)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A commit that fails removes what it wrote, in every directory.
func TestCommitOtherDirRollback(t *testing.T) {
	dir := t.TempDir()
	main, other := filepath.Join(dir, "main"), filepath.Join(dir, "other")
	write := func(p string) error { return os.WriteFile(p, []byte("x"), 0o644) }
	err := Commit(main,
		Output{Name: "a", Write: write},
		Output{Name: "sub/b", Dir: other, Write: func(p string) error {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			return write(p)
		}},
		Output{Name: "c", Write: func(string) error { return errors.New("disk full") }},
	)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v", err)
	}
	for _, p := range []string{filepath.Join(main, "a"), filepath.Join(other, "sub", "b")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind", p)
		}
	}
}
