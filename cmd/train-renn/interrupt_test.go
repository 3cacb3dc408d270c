package main

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/cli/clitest"
	"github.com/renn-go/renn/stages/samplemodel"
	"github.com/renn-go/renn/stages/stageio"
)

// quickThenSlow writes a models folder whose model 0 trains in moments and
// model 1 (a 12x12 grid with a tolerance no run meets) until stopped.
func quickThenSlow(t *testing.T, dir string) string {
	t.Helper()
	var all []stageio.Model
	for k, p := range []samplemodel.IsingParams{
		{Graph: "grid", Size: 2, Gamma: 1, Count: 1, Seed: 1},
		{Graph: "grid", Size: 12, Gamma: 1, Count: 1, Seed: 2},
	} {
		src := filepath.Join(dir, "src", p.Graph+string(rune('a'+k)))
		if err := samplemodel.Ising(p, src); err != nil {
			t.Fatal(err)
		}
		ms, _, err := stageio.LoadModels(src)
		if err != nil {
			t.Fatal(err)
		}
		ms[0].ID = int32(k)
		all = append(all, ms[0])
	}
	models := filepath.Join(dir, "models")
	infos, rows := stageio.Rows(all)
	prov := formats.Provenance{Stage: "test", Params: "{}"}
	if err := stageio.Commit(models,
		stageio.Output{Name: formats.ModelsFile, Write: func(p string) error { return formats.WriteModels(p, rows, prov) }},
		stageio.Output{Name: formats.ModelInfoFile, Write: func(p string) error { return formats.WriteModelInfo(p, infos, prov) }},
	); err != nil {
		t.Fatal(err)
	}
	return models
}

// TestInterruptKeepsFinishedModels: SIGINT (and SIGTERM) while the second
// model trains ends train-renn with exit 130 and one plain line, the first
// model's results kept in OUT/partial/, marked partial.
func TestInterruptKeepsFinishedModels(t *testing.T) {
	dir := t.TempDir()
	models := quickThenSlow(t, dir)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(dir, "out-"+sig.String())
		cmd := clitest.Command(t, "--models", models, "--scheme", "faces", "--rounds", "0", "--tol", "1e-300", "--max-steps", "100000000", "--out", out)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var lines []string
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "msg=trained model=0") {
				time.Sleep(200 * time.Millisecond) // into model 1
				cmd.Process.Signal(sig)
				break
			}
		}
		rest, _ := io.ReadAll(stderr)
		lines = append(lines, strings.Split(strings.TrimSpace(string(rest)), "\n")...)
		err = cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		last := lines[len(lines)-1]
		want := "train-renn: interrupted; 1 of 2 models finished, kept in " + filepath.Join(out, "partial") + "/ (marked partial; outputs of an earlier complete run are left as they were)"
		if code != 130 || last != want {
			t.Fatalf("%v: exit %d (%v), last line %q, want 130 and %q\nstderr:\n%s", sig, code, err, last, want, strings.Join(lines, "\n"))
		}
		est, prov, err := formats.ReadEstimates(filepath.Join(out, "partial", formats.EstimatesFile))
		if err != nil {
			t.Fatal(err)
		}
		var params stageio.PartialParams
		if err := json.Unmarshal([]byte(prov.Params), &params); err != nil {
			t.Fatal(err)
		}
		if len(est) != 1 || est[0].ModelID != 0 || params.Partial != "1 of 2 models: interrupted" {
			t.Errorf("%v: partial estimates %+v, params %q", sig, est, prov.Params)
		}
		if _, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile)); err == nil {
			t.Errorf("%v: complete outputs written", sig)
		}
	}
}
