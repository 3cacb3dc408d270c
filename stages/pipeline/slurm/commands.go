package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// sbatch submits script with args and returns the job ID.
func sbatch(ctx context.Context, args []string, script string) (string, error) {
	cmd := exec.CommandContext(ctx, "sbatch", args...)
	cmd.Stdin = strings.NewReader(script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("sbatch: %w", context.Cause(ctx))
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("sbatch: %s: %w", msg, err)
		}
		return "", fmt.Errorf("sbatch: %w", err)
	}
	// --parsable prints "jobid" or "jobid;cluster".
	line, _, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
	id, _, _ := strings.Cut(line, ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch printed %q, want a job ID", strings.TrimSpace(stdout.String()))
	}
	return id, nil
}

// scancel cancels jobs, array tasks or whole arrays. A context of its own
// lets it run after the run's context was cancelled.
func scancel(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "scancel", ids...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("scancel %s: %s: %w", strings.Join(ids, " "), strings.TrimSpace(string(out)), err)
	}
	return nil
}

// jobState is what Slurm says about one job or array task.
type jobState struct {
	State  string // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT...
	Reason string // why a pending job waits
	Code   int    // exit code; -1 unknown
	Signal int    // signal that ended it, 0 if none
}

// finished reports whether state is a final Slurm job state.
func finished(state string) bool {
	switch state {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL",
		"BOOT_FAIL", "DEADLINE", "PREEMPTED", "REVOKED", "SPECIAL_EXIT":
		return true
	}
	return false
}

// squeueFormat asks squeue for one line per job or array task.
const squeueFormat = "JobArrayID:|,State:|,Reason:|,exit_code:|"

// states looks up jobs (IDs of jobs or whole arrays) and returns the state
// of each job and array task Slurm knows, keyed "123" or "123_4". squeue
// knows pending, running and recently finished jobs; older ones are asked
// of sacct when accounting is on.
func (sl *Cluster) states(ctx context.Context, ids []string, want []string) (map[string]jobState, error) {
	out := map[string]jobState{}
	if len(ids) == 0 {
		return out, nil
	}
	cmd := exec.CommandContext(ctx, "squeue", "--noheader", "--array", "--states=all",
		"--Format="+squeueFormat, "--jobs="+strings.Join(ids, ","))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		// squeue fails when it knows none of the jobs.
		if !strings.Contains(stderr.String(), "Invalid job id") {
			return nil, fmt.Errorf("squeue: %s: %w", strings.TrimSpace(stderr.String()), err)
		}
	}
	parseSqueue(stdout.String(), out)
	var missing []string
	for _, w := range want {
		if _, ok := out[w]; !ok {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 && !sl.noSacct {
		cmd := exec.CommandContext(ctx, "sacct", "--noheader", "--parsable2", "--allocations",
			"--format=JobID,pipeline.State,ExitCode", "--jobs="+strings.Join(missing, ","))
		b, err := cmd.Output()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			sl.noSacct = true // accounting off, or no sacct: squeue is all there is
		} else {
			parseSacct(string(b), out)
		}
	}
	return out, nil
}

// parseSqueue reads lines of squeueFormat into states.
func parseSqueue(text string, states map[string]jobState) {
	for _, line := range strings.Split(text, "\n") {
		f := strings.Split(line, "|")
		if len(f) < 4 {
			continue
		}
		id := strings.TrimSpace(f[0])
		if id == "" || strings.Contains(id, "[") { // a summary line of pending tasks
			continue
		}
		st := jobState{State: strings.TrimSpace(f[1]), Reason: strings.TrimSpace(f[2]), Code: -1}
		// exit_code is the wait status: code in the high byte, signal low.
		if ws, err := strconv.Atoi(strings.TrimSpace(f[3])); err == nil && finished(st.State) {
			st.Code, st.Signal = ws>>8, ws&0x7f
		}
		states[id] = st
	}
}

// parseSacct reads "JobID|State|code:signal" lines into states, keeping
// what squeue said.
func parseSacct(text string, states map[string]jobState) {
	for _, line := range strings.Split(text, "\n") {
		f := strings.Split(line, "|")
		if len(f) < 3 || strings.Contains(f[0], "[") || strings.Contains(f[0], ".") {
			continue
		}
		if _, ok := states[f[0]]; ok {
			continue
		}
		state, _, _ := strings.Cut(strings.TrimSpace(f[1]), " ") // "CANCELLED by 0"
		st := jobState{State: state, Code: -1}
		code, sig, ok := strings.Cut(f[2], ":")
		if c, err := strconv.Atoi(code); err == nil && ok {
			st.Code = c
			st.Signal, _ = strconv.Atoi(sig)
		}
		states[f[0]] = st
	}
}

// arrayOf returns the job ID of the array a job reference belongs to, or
// the reference itself.
func arrayOf(ref string) string {
	id, _, _ := strings.Cut(ref, "_")
	return id
}

// checkCommands says which Slurm commands are missing.
func checkCommands(names ...string) error {
	var errs []error
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("slurm executor: %w (is this a Slurm login node?)", errors.Join(errs...))
	}
	return nil
}
