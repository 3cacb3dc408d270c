package stageio

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
)

// writeAnswers writes the answers of method on models as the run into out does,
// and returns Outputs' (or Commit's) error.
func writeAnswers(u UAIOut, method string, models ...Model) error {
	var marg []formats.MarginalRow
	var est []formats.EstimateRow
	for _, m := range models {
		r, e := uaiTestRows(method)
		for i := range r {
			r[i].ModelID = m.ID
		}
		e.ModelID = m.ID
		marg, est = append(marg, r...), append(est, e)
	}
	if err := u.Claim([]string{method}, models); err != nil {
		return err
	}
	outs, _, err := u.Outputs([]string{method}, models, marg, est)
	if err != nil {
		return err
	}
	return Commit(u.Out, outs...)
}

// twoModels are uaiTestModel named a and b, ids 4 and 5.
func twoModels() []Model {
	a, b := uaiTestModel("a"), uaiTestModel("b")
	b.ID = 5
	return []Model{a, b}
}

// resultFiles lists the result files under dir, relative to it.
func resultFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && isResultName(d.Name()) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// A rerun into the same --out replaces its own files; a run into another
// --out is refused (a usage error) before it runs and again when it
// writes, unless Overwrite.
func TestUAIOutOtherRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	uai := filepath.Join(root, "uai")
	first := UAIOut{Dir: uai, Out: filepath.Join(root, "first"), Stage: "run-baselines"}
	models := twoModels()
	for range 2 {
		if err := writeAnswers(first, "gbp", models...); err != nil {
			t.Fatalf("run and rerun of the same run: %v", err)
		}
	}
	other := UAIOut{Dir: uai, Out: filepath.Join(root, "other"), Stage: "run-baselines"}
	err := writeAnswers(other, "gbp", models[1])
	var conflict *UAIConflictError
	if !errors.As(err, &conflict) || !conflict.UsageError() {
		t.Fatalf("another run: error %v, want a UAIConflictError", err)
	}
	for _, want := range []string{filepath.Join(uai, "gbp", "b.uai.MAR") + " (written by run-baselines --out " + resolve(first.Out) + ")", "--overwrite"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "a.uai") {
		t.Errorf("error %q names a file the run does not write", err)
	}
	// Outputs refuses too (another run may have written meanwhile).
	r, e := uaiTestRows("gbp")
	if _, _, err := other.Outputs([]string{"gbp"}, models[:1], r, []formats.EstimateRow{e}); !errors.As(err, &conflict) {
		t.Errorf("Outputs: error %v, want a UAIConflictError", err)
	}
	// Another method of the other run has its own directory: no conflict.
	if err := writeAnswers(other, "bp", models...); err != nil {
		t.Errorf("another method: %v", err)
	}
	other.Overwrite = true
	if err := writeAnswers(other, "gbp", models[1]); err != nil {
		t.Fatalf("with overwrite: %v", err)
	}
	if run, ok, err := fileRun(filepath.Join(uai, "gbp", "b.uai.PR")); err != nil || !ok || !other.ours(run) {
		t.Errorf("after overwrite, b.uai.PR is of run %+v (%v, %v), want the other run's", run, ok, err)
	}
	if run, _, _ := fileRun(filepath.Join(uai, "gbp", "a.uai.PR")); !first.ours(run) {
		t.Errorf("a file the overwriting run did not write changed hands: %+v", run)
	}
}

// A result file these tools did not write (a competition's, an older
// version's) is not replaced without Overwrite.
func TestUAIOutForeignFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	u := UAIOut{Dir: filepath.Join(root, "uai"), Out: filepath.Join(root, "out"), Stage: "exact-infer"}
	write(t, filepath.Join(u.Dir, "exact", "a.uai.MAR"), "MAR\n3 2 0.5 0.5 3 0 0 1 2 0 1\n")
	err := writeAnswers(u, "exact", uaiTestModel("a"))
	if err == nil || !strings.Contains(err.Error(), "a.uai.MAR (not written by these tools)") {
		t.Fatalf("error %v", err)
	}
	if got := read(t, filepath.Join(u.Dir, "exact", "a.uai.MAR")); !strings.HasPrefix(got, "MAR\n") {
		t.Errorf("the file was changed: %q", got)
	}
	u.Overwrite = true
	if err := writeAnswers(u, "exact", uaiTestModel("a")); err != nil {
		t.Fatal(err)
	}
}

// A rerun removes the files of its previous run it no longer writes, and
// keeps those of other runs.
func TestUAIOutRerunRemovesItsOwn(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	uai := filepath.Join(root, "uai")
	mine := UAIOut{Dir: uai, Out: filepath.Join(root, "mine"), Stage: "train-renn"}
	theirs := UAIOut{Dir: uai, Out: filepath.Join(root, "theirs"), Stage: "train-renn"}
	c := uaiTestModel("c")
	c.ID = 6
	if err := writeAnswers(mine, "renn-mp", twoModels()...); err != nil {
		t.Fatal(err)
	}
	if err := writeAnswers(theirs, "renn-mp", c); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(uai, "renn-mp", "notes.txt"), "kept")
	if err := writeAnswers(mine, "renn-mp", twoModels()[0]); err != nil {
		t.Fatal(err)
	}
	want := []string{"renn-mp/a.uai.MAR", "renn-mp/a.uai.PR", "renn-mp/c.uai.MAR", "renn-mp/c.uai.PR"}
	if got := resultFiles(t, uai); !slices.Equal(got, want) {
		t.Errorf("after the rerun: %q, want %q", got, want)
	}
	if got := read(t, filepath.Join(uai, "renn-mp", "notes.txt")); got != "kept" {
		t.Errorf("notes.txt: %q", got)
	}
}

// A run is known by its --out relative to the files: the same directories
// reached another way (a link), or the whole tree moved, are the same run.
func TestUAIOutSameRunMoved(t *testing.T) {
	root := t.TempDir()
	tree := filepath.Join(root, "project")
	u := UAIOut{Dir: filepath.Join(tree, "uai"), Out: filepath.Join(tree, "out"), Stage: "exact-infer"}
	if err := writeAnswers(u, "exact", uaiTestModel("a")); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(root, "moved")
	if err := os.Rename(tree, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, u := range []UAIOut{
		{Dir: filepath.Join(moved, "uai"), Out: filepath.Join(moved, "out"), Stage: "exact-infer"},
		{Dir: "link/uai", Out: "moved/out", Stage: "exact-infer"},
	} {
		if err := u.Claim([]string{"exact"}, []Model{uaiTestModel("a")}); err != nil {
			t.Errorf("%+v: %v", u, err)
		}
	}
	u = UAIOut{Dir: "link/uai", Out: "moved/other", Stage: "exact-infer"}
	if err := u.Claim([]string{"exact"}, []Model{uaiTestModel("a")}); err == nil {
		t.Error("another --out beside the moved one: no conflict")
	}
}

// An answer without an estimate of ln Z gets no PR file, and no PR file of
// an earlier run stays beside its MAR file: another run's is refused, then
// removed with Overwrite.
func TestUAIOutNoEstimateRemovesPR(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	u := UAIOut{Dir: filepath.Join(root, "uai"), Out: filepath.Join(root, "out"), Stage: "run-baselines"}
	pr := filepath.Join(u.Dir, "gibbs", "a.uai.PR")
	write(t, pr, "PR\n1.5\n")
	models := []Model{uaiTestModel("a")}
	r, e := uaiTestRows("gibbs")
	e.LogZ = math.NaN()
	if err := u.Claim([]string{"gibbs"}, models); err == nil {
		t.Fatal("another run's PR file: no conflict")
	}
	u.Overwrite = true
	outs, _, err := u.Outputs([]string{"gibbs"}, models, r, []formats.EstimateRow{e})
	if err != nil {
		t.Fatal(err)
	}
	if err := Commit(u.Out, outs...); err != nil {
		t.Fatal(err)
	}
	if got := resultFiles(t, u.Dir); !slices.Equal(got, []string{"gibbs/a.uai.MAR"}) {
		t.Errorf("files %q, want the MAR file only", got)
	}
}
