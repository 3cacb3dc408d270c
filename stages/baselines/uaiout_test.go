package baselines

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

// --uai-out writes each method's UAI result files in a directory of its own,
// holding what marginals.parquet and estimates.parquet hold.
func TestRunUAIOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models, out, uai := filepath.Join(dir, "models"), filepath.Join(dir, "out"), filepath.Join(dir, "uai")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, models); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), Params{Models: models, Methods: []string{"mf", "bp"}, UAIOut: uai}, out, io.Discard); err != nil {
		t.Fatal(err)
	}
	est, marg := readOutputs(t, out)
	for _, e := range est {
		mar, err := formats.ReadMARFile(filepath.Join(uai, e.Method, "markov_small.uai.MAR"), []int{2, 3, 1, 2})
		if err != nil {
			t.Fatal(err)
		}
		z, err := formats.ReadPRFile(filepath.Join(uai, e.Method, "markov_small.uai.PR"))
		if err != nil {
			t.Fatal(err)
		}
		if z != e.LogZ/math.Ln10 {
			t.Errorf("%s: PR %v, ln Z %v", e.Method, z, e.LogZ)
		}
		for _, r := range marg {
			// Variable 2 has one state: its marginal is [1] either way.
			if r.Method == e.Method && r.Kind == "var" && r.Index != 2 {
				for x, p := range r.Probs {
					if mar[r.Index][x] != p {
						t.Errorf("%s variable %d: MAR %v, parquet %v", e.Method, r.Index, mar[r.Index], r.Probs)
					}
				}
			}
		}
	}
}

// files maps every file under dir, hidden ones included, to its content.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRunUAIOutAtomic: a run whose last output (a UAI file) fails, after
// the Parquet files are written, leaves the previous run's Parquet and UAI
// files as they were and nothing new beside them; the next run replaces
// both together.
func TestRunUAIOutAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models, out, uai := filepath.Join(dir, "models"), filepath.Join(dir, "out"), filepath.Join(dir, "uai")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, models); err != nil {
		t.Fatal(err)
	}
	run := func(methods ...string) error {
		return Run(context.Background(), Params{Models: models, Methods: methods, UAIOut: uai}, out, io.Discard)
	}
	if err := run("mf"); err != nil {
		t.Fatal(err)
	}
	beforeOut, beforeUAI := files(t, out), files(t, uai)
	injected := errors.New("injected failure")
	d := defaultDeps()
	d.commit = func(dir string, outs ...stageio.Output) error {
		last := &outs[len(outs)-1]
		if outs[0].Name != formats.MarginalsFile || filepath.Dir(last.Dir) != uai {
			t.Fatalf("outputs %v: want the Parquet files first and a UAI file last", outs)
		}
		last.Write = func(string) error { return injected }
		return stageio.Commit(dir, outs...)
	}
	err := d.run(context.Background(), Params{Models: models, Methods: []string{"bp"}, UAIOut: uai}, out, io.Discard)
	if !errors.Is(err, injected) {
		t.Fatalf("error %v, want the injected one", err)
	}
	if got := files(t, out); !maps.Equal(got, beforeOut) {
		t.Errorf("out changed by a failed run: %d files, want %d", len(got), len(beforeOut))
	}
	if got := files(t, uai); !maps.Equal(got, beforeUAI) {
		t.Errorf("uai changed by a failed run: %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(beforeUAI)))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "models" && e.Name() != "out" && e.Name() != "uai" {
			t.Errorf("a failed run left %s", e.Name())
		}
	}
	if err := run("bp"); err != nil {
		t.Fatal(err)
	}
	est, _ := readOutputs(t, out)
	z, err := formats.ReadPRFile(filepath.Join(uai, "bp", "markov_small.uai.PR"))
	if err != nil || len(est) != 1 || est[0].Method != "bp" || z != est[0].LogZ/math.Ln10 {
		t.Errorf("after the next run: PR %v, %v; estimates %+v", z, err, est)
	}
}

// TestRunUAIOutInsideOut: --uai-out may lie inside --out; a second run
// replaces both.
func TestRunUAIOutInsideOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models, out := filepath.Join(dir, "models"), filepath.Join(dir, "out")
	uai := filepath.Join(out, "uai")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, models); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"mf", "bp"} {
		if err := Run(context.Background(), Params{Models: models, Methods: []string{method}, UAIOut: uai}, out, io.Discard); err != nil {
			t.Fatal(err)
		}
		est, _ := readOutputs(t, out)
		z, err := formats.ReadPRFile(filepath.Join(uai, method, "markov_small.uai.PR"))
		if err != nil || len(est) != 1 || est[0].Method != method || z != est[0].LogZ/math.Ln10 {
			t.Errorf("%s: PR %v, %v; estimates %+v", method, z, err, est)
		}
	}
}

// broken returns its method's answers with ln Z NaN and the first
// variable's marginal off by 1%, as a method that diverged might.
type broken struct{ infer.Method }

func (b broken) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	res, err := b.Method.Infer(ctx, m)
	if err != nil {
		return nil, err
	}
	res.LogZ = math.NaN()
	for i := range res.Marginals.Vars[0] {
		res.Marginals.Vars[0][i] *= 1.01
	}
	res.Status = infer.Converged // the check, not the method, must say no
	return res, nil
}

// breakMethod returns the stage's dependencies with method returning broken
// answers; the shared check runs on them as on any.
func breakMethod(method string) deps {
	d := defaultDeps()
	d.newMethod = func(e *methods.Entry, o *methods.Options, g *region.Graph) (infer.Method, error) {
		m, err := e.New(o, g)
		if err != nil || e.Name != method {
			return m, err
		}
		return methods.Verified(broken{m}), nil
	}
	return d
}

// firstLine returns the first line of the file at path.
func firstLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

// An answer that failed the shared check is written with a first line that
// says so and why; one that stopped at its iteration cap, passing the
// check, says it did not converge; the summary lists both, with their files.
func TestRunUAIOutHonest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models, out, uai := filepath.Join(dir, "models"), filepath.Join(dir, "out"), filepath.Join(dir, "uai")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, models); err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	p := Params{Models: models, Methods: []string{"mf", "bp", "dbp"}, Set: []string{"mf.max_iter=1"}, UAIOut: uai}
	if err := breakMethod("bp").run(context.Background(), p, out, &w); err != nil {
		t.Fatal(err)
	}
	est, _ := readOutputs(t, out)
	for _, e := range est {
		if e.Method == "bp" && (e.Converged || stageio.CheckFailure(e.Params) == "") {
			t.Fatalf("the broken answer passed the check: %+v", e)
		}
		if e.Method == "mf" && (e.Converged || stageio.CheckFailure(e.Params) != "") {
			t.Fatalf("mean field after one sweep: %+v, want not converged and no check failure", e)
		}
	}
	want := map[string]string{
		"bp":  "c renn status: FAILED CHECK: ln Z is NaN; the numbers below are what the method returned, not a valid answer",
		"mf":  "c renn status: NOT CONVERGED: the method stopped after 1 iterations (its iteration cap) before its convergence test passed; the answer passed the shared check",
		"dbp": "c renn status: converged; the answer passed the shared check",
	}
	for method, line := range want {
		for _, suf := range []string{".MAR", ".PR"} {
			if got := firstLine(t, filepath.Join(uai, method, "markov_small.uai"+suf)); got != line {
				t.Errorf("%s%s begins %q, want %q", method, suf, got, line)
			}
		}
	}
	// The broken numbers are written as returned, under that line.
	if z, err := formats.ReadPRFile(filepath.Join(uai, "bp", "markov_small.uai.PR")); err != nil || !math.IsNaN(z) {
		t.Errorf("bp PR %v, %v", z, err)
	}
	s := w.String()
	for _, want := range []string{
		"3 answers: 1 converged, 1 not converged but passing the shared check, 1 failed the shared check; UAI result files in " + uai,
		"model 0 (markov_small.uai) bp: ln Z is NaN [" + filepath.Join(uai, "bp", "markov_small.uai") + ".MAR, .PR]",
		"model 0 (markov_small.uai) mf: the method stopped after 1 iterations",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

// Two runs (two --out) writing the same method into one --uai-out: the
// second is refused, as a usage error, before it runs, and writes nothing;
// a rerun of the first replaces its own files; --overwrite lets the second
// replace them.
func TestRunUAIOutOtherRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	models, uai := filepath.Join(dir, "models"), filepath.Join(dir, "uai")
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	if err := samplemodel.UAI(samplemodel.UAIParams{In: "../../formats/testdata/uai/markov_small.uai"}, models); err != nil {
		t.Fatal(err)
	}
	p := Params{Models: models, Methods: []string{"bp"}, UAIOut: uai}
	for range 2 {
		if err := Run(context.Background(), p, first, io.Discard); err != nil {
			t.Fatalf("run and rerun into the same --out: %v", err)
		}
	}
	before := files(t, uai)
	ran := false
	d := defaultDeps()
	d.newMethod = func(e *methods.Entry, o *methods.Options, g *region.Graph) (infer.Method, error) {
		ran = true
		return e.New(o, g)
	}
	err := d.run(context.Background(), p, second, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "another run") || !strings.Contains(err.Error(), "--overwrite") {
		t.Fatalf("second run: error %v", err)
	}
	var usage interface{ UsageError() bool }
	if !errors.As(err, &usage) || !usage.UsageError() {
		t.Errorf("error %T is not a usage error", err)
	}
	if ran {
		t.Error("a method ran before the refusal")
	}
	if _, err := os.Stat(second); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused run wrote %s", second)
	}
	if got := files(t, uai); !maps.Equal(got, before) {
		t.Error("the refused run changed --uai-out")
	}
	p.Overwrite = true
	if err := Run(context.Background(), p, second, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(uai, "bp", "markov_small.uai.MAR"))
	if err != nil || !strings.Contains(string(b), `out="../../second"`) {
		t.Errorf("after --overwrite: %q, %v", b, err)
	}
}
