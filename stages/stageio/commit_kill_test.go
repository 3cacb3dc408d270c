//go:build unix

package stageio

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// slowText writes content a few bytes at a time, so a kill lands inside a
// writer as often as between them.
func slowText(name, content string) Output {
	return Output{Name: name, Write: func(path string) error {
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"-3.tmp")
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		for i := 0; i < len(content); i += 4 {
			f.WriteString(content[i:min(i+4, len(content))])
			time.Sleep(200 * time.Microsecond)
		}
		if err := f.Close(); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}}
}

// TestCommitHelperProcess is the process the kill test kills: it commits
// a new set into COMMIT_KILL_DIR.
func TestCommitHelperProcess(t *testing.T) {
	dir := os.Getenv("COMMIT_KILL_DIR")
	if dir == "" {
		t.Skip("run by TestCommitKilled")
	}
	err := Commit(dir, slowText("marginals.parquet", strings.Repeat("new marginals ", 20)),
		slowText("estimates.parquet", strings.Repeat("new estimates ", 20)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestCommitKilled kills a committing process with SIGKILL at random
// moments: the directory always holds the whole previous set or the whole
// new one, and the next commit leaves no temporary file or directory.
func TestCommitKilled(t *testing.T) {
	t.Parallel()
	helper := func(out string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCommitHelperProcess$")
		cmd.Env = append(os.Environ(), "COMMIT_KILL_DIR="+out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	// An unkilled run, timed, sets the window the kills fall in.
	_, out := previous(t)
	start := time.Now()
	if err := helper(out).Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	window := time.Since(start) * 5 / 4
	rng := rand.New(rand.NewPCG(5, 21))
	outcomes := map[string]int{}
	for k := range 50 {
		_, out := previous(t)
		cmd := helper(out)
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		cmd.Process.Kill()
		cmd.Wait()

		m := read(t, filepath.Join(out, "marginals.parquet"))
		e := read(t, filepath.Join(out, "estimates.parquet"))
		switch {
		case m == "old marginals" && e == "old estimates":
			outcomes["old"]++
		case strings.HasPrefix(m, "new marginals") && strings.HasPrefix(e, "new estimates") && len(m) == 280 && len(e) == 280:
			outcomes["new"]++
		default:
			t.Fatalf("kill %d: mixed output: marginals %q, estimates %q", k, m, e)
		}
		if got := read(t, filepath.Join(out, "notes.txt")); got != "mine" {
			t.Fatalf("kill %d: notes.txt %q", k, got)
		}
		if err := Commit(out, text("marginals.parquet", "m"), text("estimates.parquet", "e")); err != nil {
			t.Fatal(err)
		}
		if got := names(t, filepath.Dir(out)); !slices.Equal(got, []string{"out"}) {
			t.Fatalf("kill %d: after the next commit data holds %q, want only out", k, got)
		}
		if got, want := names(t, out), []string{".logs", "estimates.parquet", "marginals.parquet", "notes.txt"}; !slices.Equal(got, want) {
			t.Fatalf("kill %d: after the next commit out holds %q, want %q", k, got, want)
		}
	}
	t.Logf("after 50 kills: %v", outcomes)
}
