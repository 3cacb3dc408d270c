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
	return rows, formats.EstimateRow{ModelID: 4, Method: method, LogZ: 2 * math.Ln10, Converged: true, Status: formats.StatusConverged}
}

func TestUAIOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	models := []Model{uaiTestModel("net.uai")}
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, method := range []string{"bp", "mf"} {
		r, e := uaiTestRows(method)
		marg, est = append(marg, r...), append(est, e)
	}
	u := UAIOut{Dir: out, Out: filepath.Join(dir, "parquet"), Stage: "test"}
	outs, answers, err := u.Outputs([]string{"bp", "mf"}, models, marg, est)
	if err != nil {
		t.Fatal(err)
	}
	if err := Commit(filepath.Join(dir, "parquet"), outs...); err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.25, 0.75}, {0, 0, 1}, {0, 1}}
	for i, method := range []string{"bp", "mf"} {
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
		a := answers[i]
		if a.Method != method || a.Base != filepath.Join(out, method, "net.uai") || a.MAR.State != UAIConverged || a.PR.State != UAIConverged {
			t.Errorf("answer %+v", a)
		}
		for _, suf := range []string{".MAR", ".PR"} {
			head, err := formats.ReadUAIResultHeader(filepath.Join(out, method, "net.uai"+suf))
			wantHead := []string{uaiStatusConverged, `renn run: stage=test out="../../parquet" method=` + method}
			if err != nil || !reflect.DeepEqual(head, wantHead) {
				t.Errorf("%s%s: header %q, %v; want %q", method, suf, head, err, wantHead)
			}
		}
	}
	// The rows themselves are left as they were.
	if marg[1].Probs[2] != 0.7 {
		t.Errorf("rows changed: %v", marg[1].Probs)
	}

	// One method, exact-infer's: its own directory too.
	r, e := uaiTestRows("exact")
	flat := filepath.Join(dir, "flat")
	u.Dir = flat
	if outs, _, err = u.Outputs([]string{"exact"}, models, r, []formats.EstimateRow{e}); err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || outs[0].Name != "net.uai.MAR" || outs[1].Name != "net.uai.PR" || outs[0].Dir != filepath.Join(flat, "exact") {
		t.Errorf("outputs %+v", outs)
	}
	u.Dir = ""
	outs, answers, err = u.Outputs([]string{"exact"}, models, r, []formats.EstimateRow{e})
	if outs != nil || err != nil || len(answers) != 1 || answers[0].Base != "" {
		t.Errorf("no directory: %v, %+v, %v", outs, answers, err)
	}
}

func TestUAIOutputsErrors(t *testing.T) {
	t.Parallel()
	r, e := uaiTestRows("bp")
	two := []Model{uaiTestModel("a"), uaiTestModel("a.uai")}
	two[1].ID = 5
	r5, e5 := uaiTestRows("bp")
	for i := range r5 {
		r5[i].ModelID = 5
	}
	e5.ModelID = 5
	tests := []struct {
		name    string
		models  []Model
		methods []string
		marg    []formats.MarginalRow
		est     []formats.EstimateRow
		want    string
	}{
		{"path in the name", []Model{uaiTestModel("../x")}, []string{"bp"}, r, []formats.EstimateRow{e}, `model name "../x" cannot name a UAI result file`},
		{"empty name", []Model{uaiTestModel(".uai")}, []string{"bp"}, r, []formats.EstimateRow{e}, `model name ".uai" cannot name`},
		{"clash", two, []string{"bp"}, append(r, r5...), []formats.EstimateRow{e, e5}, "models 4 and 5 would both write bp/a.uai.MAR"},
		{"missing marginal", []Model{uaiTestModel("a")}, []string{"bp"}, r[1:], []formats.EstimateRow{e}, "no marginal of 2 states for variable 0"},
		{"unknown model", nil, []string{"bp"}, r, []formats.EstimateRow{e}, "estimate of model 4 by bp, not among the models and methods run"},
		{"unknown method", []Model{uaiTestModel("a")}, []string{"mf"}, r, []formats.EstimateRow{e}, "estimate of model 4 by bp, not among"},
		{"method as a path", []Model{uaiTestModel("a")}, []string{"../bp"}, r, []formats.EstimateRow{e}, `method name "../bp" cannot name a directory`},
	}
	for _, tc := range tests {
		_, _, err := UAIOut{Dir: "dir", Out: "out"}.Outputs(tc.methods, tc.models, tc.marg, tc.est)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := (UAIOut{Overwrite: true}).Check(); err == nil || !strings.Contains(err.Error(), "--overwrite") {
		t.Errorf("--overwrite without --uai-out: %v", err)
	}
}

// A commit that fails removes what it wrote, in every directory.
func TestCommitOtherDirRollback(t *testing.T) {
	t.Parallel()
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
