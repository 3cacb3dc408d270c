package exactinfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer/infertest"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

func TestRunMatchesBruteForce(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 7}, models); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "exact")
	var buf bytes.Buffer
	if err := Run(context.Background(), Params{Models: models, Options: exact.DefaultOptions()}, out, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "ln Z") {
		t.Errorf("no table printed: %q", buf.String())
	}
	ms, _, err := stageio.LoadModels(models)
	if err != nil {
		t.Fatal(err)
	}
	marg, prov, err := formats.ReadMarginals(filepath.Join(out, formats.MarginalsFile))
	if err != nil {
		t.Fatal(err)
	}
	if prov.Stage != "exact-infer" || len(prov.Inputs) != 2 {
		t.Errorf("provenance %+v", prov)
	}
	est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(est) != 2 || len(marg) != 2*(9+9+12) {
		t.Fatalf("%d estimates, %d marginals", len(est), len(marg))
	}
	for _, e := range ms {
		bf, err := infertest.BruteForce(e.Model)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(est[e.ID].LogZ - bf.LogZ); d > 1e-9 {
			t.Errorf("model %d: ln Z off by %g", e.ID, d)
		}
		for _, r := range marg {
			if r.ModelID != e.ID {
				continue
			}
			want := bf.Marginals.Vars
			if r.Kind == "factor" {
				want = bf.Marginals.Factors
			}
			for x, p := range r.Probs {
				if math.Abs(p-want[r.Index][x]) > 1e-9 {
					t.Fatalf("model %d %s %d: %v, want %v", e.ID, r.Kind, r.Index, r.Probs, want[r.Index])
				}
			}
		}
	}
}

// Bad inputs: a clear error naming the file and the problem, and no output.
func TestBadInputs(t *testing.T) {
	good := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "models")
		if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 1}, dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	rewrite := func(t *testing.T, dir string, edit func(rows []formats.FactorRow, infos []formats.ModelInfoRow)) {
		rows, prov, err := formats.ReadModels(filepath.Join(dir, formats.ModelsFile))
		if err != nil {
			t.Fatal(err)
		}
		infos, _, err := formats.ReadModelInfo(filepath.Join(dir, formats.ModelInfoFile))
		if err != nil {
			t.Fatal(err)
		}
		edit(rows, infos)
		if err := formats.WriteModels(filepath.Join(dir, formats.ModelsFile), rows, prov); err != nil {
			t.Fatal(err)
		}
		if err := formats.WriteModelInfo(filepath.Join(dir, formats.ModelInfoFile), infos, prov); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		prepare  func(t *testing.T) string
		maxTable int64
		want     []string
	}{
		{"missing dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") }, 0, []string{"model_info.parquet"}},
		{"not parquet", func(t *testing.T) string {
			dir := good(t)
			os.WriteFile(filepath.Join(dir, formats.ModelsFile), []byte("hello"), 0o644)
			return dir
		}, 0, []string{"models.parquet"}},
		{"NaN", func(t *testing.T) string {
			dir := good(t)
			rewrite(t, dir, func(rows []formats.FactorRow, _ []formats.ModelInfoRow) { rows[3].LogTable[1] = math.NaN() })
			return dir
		}, 0, []string{"models.parquet", "factor 3", "NaN"}},
		{"cardinality mismatch", func(t *testing.T) string {
			dir := good(t)
			rewrite(t, dir, func(_ []formats.FactorRow, infos []formats.ModelInfoRow) { infos[0].Cards[4] = 3 })
			return dir
		}, 0, []string{"models.parquet", "needs"}},
		{"variable out of range", func(t *testing.T) string {
			dir := good(t)
			rewrite(t, dir, func(rows []formats.FactorRow, _ []formats.ModelInfoRow) { rows[12].Vars[1] = 40 })
			return dir
		}, 0, []string{"models.parquet", "out of range"}},
		{"too slow even sliced", good, 4, []string{"--max-planned-seconds", "slice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.prepare(t)
			out := filepath.Join(t.TempDir(), "exact")
			opts := exact.DefaultOptions()
			if tt.maxTable > 0 {
				// Tables of 4 entries: the 3x3 grid is sliced, and refused as
				// slower than a nanosecond.
				opts.MaxTable = tt.maxTable
				opts.MaxPlannedSeconds = 1e-9
			}
			err := Run(context.Background(), Params{Models: dir, Options: opts}, out, &bytes.Buffer{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Errorf("partial output left: %v", ents)
			}
		})
	}
}

// uaiCase is a model of formats/testdata/uai imported with optional
// evidence.
type uaiCase struct {
	in, evid string
	evidCase int
}

var uaiCases = []uaiCase{
	{in: "markov_small.uai"},
	{in: "markov_comments.uai"},
	{in: "bayes_small.uai", evid: "bayes_small.uai.evid"},
	{in: "bayes_small.uai", evid: "bayes_small_cases_comments.evid", evidCase: 1},
}

// officialMAR renders marginals and log10 Z as the competitions' reference
// files print them (6 digits after the point), so the comparison an
// official .MAR/.PR file allows is exercised without one (none is shipped:
// formats/testdata/uai/README).
func officialMAR(marg [][]float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MAR\n%d", len(marg))
	for _, p := range marg {
		fmt.Fprintf(&b, " %d", len(p))
		for _, x := range p {
			fmt.Fprintf(&b, " %.6f", x)
		}
	}
	return b.String() + "\n"
}

// exact-infer --uai-out on imported UAI models, with and without evidence:
// the files read back to the Parquet results bit for bit (observed
// variables as point masses), and they agree with brute-force enumeration
// to the 6 digits official files print and log10 Z to 1e-6.
func TestUAIOut(t *testing.T) {
	for _, tc := range uaiCases {
		name := tc.in
		if tc.evid != "" {
			name += "+" + tc.evid
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			models, out, uaiOut := filepath.Join(dir, "models"), filepath.Join(dir, "exact"), filepath.Join(dir, "uai")
			p := samplemodel.UAIParams{In: filepath.Join("../../formats/testdata/uai", tc.in), Case: tc.evidCase}
			if tc.evid != "" {
				p.Evid = filepath.Join("../../formats/testdata/uai", tc.evid)
			}
			if err := samplemodel.UAI(p, models); err != nil {
				t.Fatal(err)
			}
			if err := Run(context.Background(), Params{Models: models, Options: exact.DefaultOptions(), UAIOut: uaiOut}, out, &bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
			ms, _, err := stageio.LoadModels(models)
			if err != nil {
				t.Fatal(err)
			}
			m := ms[0].Model
			base := filepath.Join(uaiOut, "exact", strings.TrimSuffix(tc.in, ".uai")+".uai")
			mar, err := formats.ReadMARFile(base+".MAR", m.Cards)
			if err != nil {
				t.Fatal(err)
			}
			log10Z, err := formats.ReadPRFile(base + ".PR")
			if err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(filepath.Join(uaiOut, "exact"))
			if len(ents) != 2 {
				t.Errorf("--uai-out/exact holds %d entries, want the .MAR and the .PR", len(ents))
			}

			// Round trip: the files hold the Parquet results exactly.
			est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
			if err != nil {
				t.Fatal(err)
			}
			if log10Z != est[0].LogZ/math.Ln10 {
				t.Errorf("PR %v, estimates.parquet ln Z %v / ln 10 = %v", log10Z, est[0].LogZ, est[0].LogZ/math.Ln10)
			}
			rows, _, err := formats.ReadMarginals(filepath.Join(out, formats.MarginalsFile))
			if err != nil {
				t.Fatal(err)
			}
			observed := map[int]int{}
			if tc.evid != "" {
				cases, err := formats.ReadEvidenceFile(p.Evid, m.Cards)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range cases[tc.evidCase] {
					observed[o.Var] = o.State
				}
			}
			for _, r := range rows {
				if r.Kind != "var" {
					continue
				}
				got := mar[r.Index]
				if s, ok := observed[int(r.Index)]; ok {
					for x := range got {
						if want := float64(boolInt(x == s)); got[x] != want {
							t.Errorf("observed variable %d: MAR %v, want the point mass on %d", r.Index, got, s)
						}
					}
					continue
				}
				for x := range got {
					if got[x] != r.Probs[x] {
						t.Errorf("variable %d: MAR %v, marginals.parquet %v", r.Index, got, r.Probs)
					}
				}
			}

			// Against the truth, as an official file prints it.
			bf, err := infertest.BruteForce(m)
			if err != nil {
				t.Fatal(err)
			}
			official, err := formats.ReadMAR(strings.NewReader(officialMAR(bf.Marginals.Vars)), "official.MAR", m.Cards)
			if err != nil {
				t.Fatal(err)
			}
			for i := range official {
				for x := range official[i] {
					// A 6-digit file is within 5e-7 of the truth.
					if d := math.Abs(mar[i][x] - official[i][x]); d > 5e-7+1e-12 {
						t.Errorf("variable %d state %d: %v, official-style %v (off by %.2g)", i, x, mar[i][x], official[i][x], d)
					}
				}
			}
			if d := math.Abs(log10Z - bf.LogZ/math.Ln10); d > 1e-6 {
				t.Errorf("log10 Z %v, brute force %v", log10Z, bf.LogZ/math.Ln10)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// With --uai-out every Ising model of a collection gets its pair of files,
// named after the model.
func TestUAIOutIsing(t *testing.T) {
	dir := t.TempDir()
	models, uaiOut := filepath.Join(dir, "models"), filepath.Join(dir, "uai")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 7}, models); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), Params{Models: models, Options: exact.DefaultOptions(), UAIOut: uaiOut}, filepath.Join(dir, "exact"), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"grid3-gamma1-0", "grid3-gamma1-1"} {
		if _, err := formats.ReadMARFile(filepath.Join(uaiOut, "exact", name+".uai.MAR"), []int{2, 2, 2, 2, 2, 2, 2, 2, 2}); err != nil {
			t.Error(err)
		}
		if _, err := formats.ReadPRFile(filepath.Join(uaiOut, "exact", name+".uai.PR")); err != nil {
			t.Error(err)
		}
	}
}

// exact-infer's files go to DIR/exact/, say the answers converged, and name
// the run; a second exact-infer run (another --out) is refused, before it
// solves anything, unless Overwrite; --overwrite without --uai-out is
// refused by Check.
func TestUAIOutLayoutAndRuns(t *testing.T) {
	dir := t.TempDir()
	models, uaiOut := filepath.Join(dir, "models"), filepath.Join(dir, "uai")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 1, Seed: 7}, models); err != nil {
		t.Fatal(err)
	}
	p := Params{Models: models, Options: exact.DefaultOptions(), UAIOut: uaiOut}
	var w bytes.Buffer
	if err := Run(context.Background(), p, filepath.Join(dir, "exact"), &w); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(uaiOut, "exact", "grid3-gamma1-0.uai.PR"))
	if want := "c renn status: converged; the answer passed the shared check\nc renn run: stage=exact-infer out=\"../../exact\" method=exact\nPR\n"; err != nil || !strings.HasPrefix(string(b), want) {
		t.Errorf("PR file %q, %v; want it to begin %q", b, err, want)
	}
	if !strings.Contains(w.String(), "1 answers: 1 converged, 0 not converged but passing the shared check, 0 failed the shared check") {
		t.Errorf("summary %q", w.String())
	}
	err = Run(context.Background(), p, filepath.Join(dir, "again"), &bytes.Buffer{})
	var conflict *stageio.UAIConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("second run: error %v, want a conflict", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "again")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the refused run wrote its output directory")
	}
	p.Overwrite = true
	if err := Run(context.Background(), p, filepath.Join(dir, "again"), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	p.UAIOut = ""
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "--overwrite") {
		t.Errorf("--overwrite without --uai-out: %v", err)
	}
}

// TestLnZZeroPrinted: a normalised model (a Bayes net without evidence)
// has ln Z = 0 up to rounding (here -1.1e-16); the table prints 0, not
// -0.000000.
func TestLnZZeroPrinted(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	m := &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0}, LogTable: []float64{math.Log(0.3), math.Log(0.7)}},
		{Vars: []int{0, 1}, LogTable: []float64{math.Log(0.3), math.Log(0.7), math.Log(0.7), math.Log(0.3)}},
	}}
	infos, rows := stageio.Rows([]stageio.Model{{ID: 0, Info: mrf.Info{Name: "bn", Graph: "uai"}, Model: m}})
	prov := formats.Provenance{Stage: "test", Params: "{}"}
	if err := stageio.Commit(models,
		stageio.Output{Name: formats.ModelsFile, Write: func(p string) error { return formats.WriteModels(p, rows, prov) }},
		stageio.Output{Name: formats.ModelInfoFile, Write: func(p string) error { return formats.WriteModelInfo(p, infos, prov) }},
	); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Run(context.Background(), Params{Models: models, Options: exact.DefaultOptions()}, filepath.Join(dir, "exact"), &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if len(lines) < 2 || strings.Fields(lines[1])[2] != "0" || strings.Contains(buf.String(), "-0.0") {
		t.Errorf("ln Z of a normalised model printed as:\n%s", buf.String())
	}
}

// TestInterruptBeforeAnyModel: a cancelled run keeps nothing when no model
// was solved, and says so.
func TestInterruptBeforeAnyModel(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 3, Gamma: 1, Count: 2, Seed: 7}, models); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "exact")
	err := Run(ctx, Params{Models: models, Options: exact.DefaultOptions()}, out, io.Discard)
	var ie *stageio.Interrupted
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) || ie.Interruption() != "no models finished (of 2), no outputs written" {
		t.Fatalf("error %v, want an interruption keeping nothing", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s written (stat: %v)", out, err)
	}
}

// --plan-only prints every model's plan and writes nothing; a model the
// bounds refuse shows its plan and the reason.
func TestPlanOnly(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 6, Gamma: 1, Count: 2, Seed: 7}, models); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "exact")
	var buf bytes.Buffer
	if err := Run(context.Background(), Params{Models: models, Options: exact.DefaultOptions(), PlanOnly: true}, out, &buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"flops", "largest table", "peak memory", "est. seconds", "grid6-gamma1-1"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("plan table lacks %q:\n%s", want, buf.String())
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--plan-only wrote an output directory")
	}
	opts := exact.DefaultOptions()
	opts.MaxPlannedSeconds = 1e-12
	buf.Reset()
	if err := Run(context.Background(), Params{Models: models, Options: opts, PlanOnly: true}, out, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "would be refused") || !strings.Contains(buf.String(), "--max-planned-seconds") {
		t.Errorf("refusal not shown:\n%s", buf.String())
	}
}

// TestReleaseAfterLargeSolve: a solve that leaves the heap above
// releaseAbove is followed by a forced collection that returns its memory,
// and one below it is not.
func TestReleaseAfterLargeSolve(t *testing.T) {
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	if err := samplemodel.Ising(samplemodel.IsingParams{Graph: "grid", Size: 4, Gamma: 1, Count: 1, Seed: 3}, models); err != nil {
		t.Fatal(err)
	}
	ms, _, err := stageio.LoadModels(models)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		above uint64
		want  uint32
	}{{above: 1, want: 1}, {above: 1 << 50, want: 0}} {
		sv, err := newSolving(Params{Models: models, Options: exact.DefaultOptions()}, filepath.Join(dir, "exact"))
		if err != nil {
			t.Fatal(err)
		}
		sv.releaseAbove = c.above
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if done, err := sv.solveAll(context.Background(), ms, io.Discard); err != nil || !done {
			t.Fatalf("solveAll: done %v, %v", done, err)
		}
		runtime.ReadMemStats(&after)
		if got := after.NumForcedGC - before.NumForcedGC; got != c.want {
			t.Errorf("release above %d bytes: %d forced collections, want %d", c.above, got, c.want)
		}
	}
}
