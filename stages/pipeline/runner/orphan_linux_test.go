package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStageDiesWithRunner: a `pipeline run` killed with SIGKILL (which it
// cannot catch to stop its stages) takes its running stage with it; the
// stage does not run on, unlocked, beside the next run.
func TestStageDiesWithRunner(t *testing.T) {
	p := newProject(t, `
[stage.slow]
run = ["fakestage"]
flags = { log = "LOG", sleep = "1m" }
`)
	cmd := exec.Command(filepath.Join(fakeBin, "pipeline"), "run", "--config", filepath.Join(p.Dir, "pipeline.toml"), "--bin", fakeBin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stage := 0
	for deadline := time.Now().Add(time.Minute); stage == 0; time.Sleep(5 * time.Millisecond) {
		if entries, _ := os.ReadDir(p.LogDir); len(entries) > 0 {
			stage = childOf(cmd.Process.Pid)
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the stage did not start in a minute:\n%s", out.String())
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); alive(stage); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			stat, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(stage), "stat"))
			cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(stage), "cmdline"))
			syscall.Kill(stage, syscall.SIGKILL)
			t.Fatalf("stage process %d still runs 10 s after its pipeline run was killed: %s (%s)", stage, stat, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
}

// childOf returns a live child process of pid, or 0.
func childOf(pid int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
			if len(f) > 1 && f[1] == strconv.Itoa(pid) && f[0] != "Z" {
				return c
			}
		}
	}
	return 0
}

// alive reports whether pid runs (a zombie does not: its parent, maybe an
// init that never reaps, holds only its exit status).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
