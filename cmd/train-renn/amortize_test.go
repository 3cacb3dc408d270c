package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/cli/clitest"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/trainrenn"
)

// train-renn --amortize on small grids writes network.parquet with its
// provenance; --weights runs it forward only and refined, on the training
// size and a larger grid; bad weights, models of another family and bad
// flag combinations are refused with the documented exit codes.
func TestAmortize(t *testing.T) {
	dir := t.TempDir()
	sample := func(name string, p samplemodel.IsingParams) string {
		out := filepath.Join(dir, name)
		if err := samplemodel.Ising(p, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	train := sample("train", samplemodel.IsingParams{Graph: "grid", Size: 4, Gamma: 1, Count: 6, Seed: 5})
	big := sample("big", samplemodel.IsingParams{Graph: "grid", Size: 6, Gamma: 1, Count: 1, Seed: 6})
	complete := sample("complete", samplemodel.IsingParams{Graph: "complete", Size: 5, Gamma: 1, Count: 1, Seed: 7})
	w := filepath.Join(dir, "w")
	if code, stderr := clitest.Run(t, "--amortize", "--models", train, "--out", w, "--family-epochs", "3", "--family-sweeps", "2", "--family-hidden", "4"); code != 0 {
		t.Fatalf("amortize: exit %d: %s", code, stderr)
	}
	wl, err := trainrenn.LoadWeights(w)
	if err != nil {
		t.Fatal(err)
	}
	p := wl.Params
	if p.Architecture.Hidden != 4 || p.Architecture.Sweeps != 2 || p.Architecture.Scheme != "faces" || p.Family.Graph != "grid" ||
		p.Family.Cardinality != 2 || p.Family.Models != 6 || p.Training.Train+p.Training.Validation != 6 || p.Options.Epochs != 3 {
		t.Errorf("provenance params %+v", p)
	}
	prov, err := formats.ReadProvenance(filepath.Join(w, formats.NetworkFile))
	if err != nil || len(prov.Inputs) != 2 {
		t.Errorf("provenance inputs %v, %v", prov.Inputs, err)
	}
	for i, tc := range []struct{ models, refine, method, by string }{{train, "0", "renn-family-fwd", ""}, {big, "0", "renn-family-fwd", ""},
		{big, "-1", "renn-family", `"refine_by":"gbp"`}, {big, "50", "renn-family", `"refine_by":"gradient"`}} {
		out := filepath.Join(dir, fmt.Sprint("out-", i))
		args := []string{"--weights", w, "--refine=" + tc.refine, "--models", tc.models, "--out", out}
		if strings.Contains(tc.by, "gradient") {
			args = append(args, "--refine-by", "gradient")
		}
		if code, stderr := clitest.Run(t, args...); code != 0 {
			t.Fatalf("--weights on %s: exit %d: %s", tc.models, code, stderr)
		}
		est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range est {
			if e.Method != tc.method || (tc.refine == "0" && (e.Converged || e.Iterations != 0)) || !strings.Contains(e.Params, `"weights"`) ||
				(tc.by != "" && !strings.Contains(e.Params, tc.by)) || (tc.by == "" && strings.Contains(e.Params, "refine_by")) {
				t.Errorf("%s refine %s: %+v", tc.models, tc.refine, e)
			}
		}
	}
	truncated := filepath.Join(dir, "truncated.parquet")
	b, _ := os.ReadFile(filepath.Join(w, formats.NetworkFile))
	if err := os.WriteFile(truncated, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(train, formats.ModelsFile)
	out := filepath.Join(dir, "bad")
	for _, tc := range []struct {
		name string
		args string
		code int
		want string
	}{
		{"truncated weights", "--weights " + truncated + " --models " + train, 1, truncated},
		{"foreign weights", "--weights " + foreign + " --models " + train, 1, foreign},
		{"missing weights", "--weights " + filepath.Join(dir, "none") + " --models " + train, 1, "none"},
		{"another family", "--weights " + w + " --models " + complete, 1, "trained on grid graphs"},
		{"weights with amortize", "--amortize --weights " + w + " --models " + train, 2, "--amortize"},
		{"refine without weights", "--refine 3 --models " + train, 2, "--refine needs --weights"},
		{"refine-by without weights", "--refine-by gradient --models " + train, 2, "--refine-by needs --weights"},
		{"refine-by with refine 0", "--weights " + w + " --refine 0 --refine-by gbp --models " + train, 2, "--refine 0"},
		{"unknown refine-by", "--weights " + w + " --refine-by newton --models " + train, 2, "refine-by"},
		{"network option with amortize", "--amortize --lambda 3 --models " + train, 2, "--lambda"},
		{"set with amortize", "--amortize --set lambda=3 --models " + train, 2, "--set"},
		{"family option without amortize", "--family-epochs 3 --models " + train, 2, "--family-epochs"},
		{"weights with the attention net", "--weights " + w + " --method renn --models " + train, 2, "message net"},
		{"bad family option", "--amortize --family-validation 1 --models " + train, 2, "validation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := clitest.Run(t, append(strings.Fields(tc.args), "--out", out)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d with %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
