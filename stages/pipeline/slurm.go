package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Slurm runs a plan on a Slurm cluster: Runner.Run, with Runner.Slurm set,
// submits every out-of-date instance with sbatch at once, each with
// --dependency on the jobs that produce its inputs, and then follows the
// jobs with squeue (and sacct where accounting is on).
//
// The instances of a stage that fans out go in one job array, task i being
// the stage's i-th instance in plan order; a shard that depends on the
// same-numbered shard of an upstream array waits for just that task
// (aftercorr), so one failed shard holds back only its own dependants.
// Jobs whose dependency can no longer be met are cancelled by Slurm
// (--kill-on-invalid-dep=yes) and reported as blocked.
//
// Each job runs the pipeline binary's job subcommand (RunBatchJob), which
// judges its instance again when the job starts, exactly as a local run
// would once the upstream has finished: an instance whose upstream reran
// but produced byte-identical files is up to date and the job ends at once.
// Otherwise it removes the instance's stamp, runs the stage binary and, if
// that exits 0, writes the stamp: the stamp is written by the job itself,
// on the node, so results are marked complete even if the submitting
// process has gone. A job killed by scancel, a time limit or a failed node
// leaves no stamp, and the next run reruns that instance and its
// dependants only.
//
// Everything a job reads and writes lives in the project directory (the
// config, the bin directory) and the config's data directory, which must
// therefore be on a file system every node mounts. Slurm's own output of
// each job goes to <data>/.slurm/<stage>-<job>.out; the record of the last
// submission of each instance to <out>/.logs/slurm.json, and the job's
// result to <out>/.logs/job.json.
type Slurm struct {
	Partition string   // sbatch --partition; "" leaves it to Slurm
	Account   string   // sbatch --account; "" leaves it to Slurm
	Options   []string // further sbatch options, one argument each, e.g. "--qos=short"

	// Pipeline is the pipeline binary the jobs run; it must be reachable
	// at this path from every node. Empty: <BinDir>/pipeline, where the
	// pipeline's build puts it.
	Pipeline string
	// NoWait makes Run return once every job is submitted, with outcome
	// Submitted; pipeline status follows them.
	NoWait bool
	// Poll is how often the jobs are looked up; 0 means 5 seconds.
	Poll time.Duration
	// TailLines is how many lines of a failed job's stderr are kept; 0
	// means 20.
	TailLines int

	noSacct bool // sacct failed once: accounting is off
}

// batchName names the job subcommand of the pipeline binary, which a job
// script runs.
const batchName = "job"

// submission is one sbatch call: a single job, or a job array of instances
// of one stage.
type submission struct {
	stage *Stage
	insts []*Instance
	tasks []int // array task ID of each instance; nil for a single job
	force []bool

	after      []int     // afterok on the whole of these earlier submissions
	afterTasks []taskRef // afterok on single tasks of earlier arrays
	corr       []int     // aftercorr: task i waits for task i of these arrays
}

// taskRef is one instance in the submissions: which one, and which task of
// its array (-1 for a single job).
type taskRef struct {
	sub, task int
}

// jobRef renders the Slurm job ID of an instance given the job IDs of the
// submissions: "123" or, for a task of an array, "123_4".
func (t taskRef) jobRef(ids []string) string {
	if t.task < 0 {
		return ids[t.sub]
	}
	return ids[t.sub] + "_" + strconv.Itoa(t.task)
}

// planSubmissions groups the instances to run (in plan order) into sbatch
// calls, in an order where every dependency is submitted first. A stage
// with several instances in the plan is an array whose task IDs are the
// instances' positions among the stage's instances, so that the tasks of
// two sharded stages correspond shard by shard. Instances that are not in
// runs (up to date) are not waited for.
func planSubmissions(p *Plan, runs []*Instance, forced map[*Instance]bool) []*submission {
	index := map[*Instance]int{}
	count := map[*Stage]int{}
	for _, inst := range p.Instances {
		index[inst] = count[inst.Stage]
		count[inst.Stage]++
	}
	var subs []*submission
	where := map[*Instance]taskRef{}
	add := func(s *submission) {
		for i, inst := range s.insts {
			t := -1
			if s.tasks != nil {
				t = s.tasks[i]
			}
			where[inst] = taskRef{len(subs), t}
		}
		subs = append(subs, s)
	}
	// depsOf lists what an instance waits for: its upstream instances that
	// are submitted too, as sorted references.
	depsOf := func(inst *Instance) []taskRef {
		var refs []taskRef
		for _, d := range inst.Deps {
			if t, ok := where[d]; ok {
				refs = append(refs, t)
			}
		}
		slices.SortFunc(refs, func(a, b taskRef) int {
			if a.sub != b.sub {
				return a.sub - b.sub
			}
			return a.task - b.task
		})
		return slices.Compact(refs)
	}
	for i := 0; i < len(runs); {
		j := i
		for j < len(runs) && runs[j].Stage == runs[i].Stage {
			j++
		}
		group := runs[i:j]
		i = j
		stage := group[0].Stage
		array := count[stage] > 1
		deps := make([][]taskRef, len(group))
		for k, inst := range group {
			deps[k] = depsOf(inst)
		}
		newSub := func(members []int) (*submission, [][]taskRef) {
			s := &submission{stage: stage}
			var d [][]taskRef
			for _, k := range members {
				d = append(d, deps[k])
				s.insts = append(s.insts, group[k])
				s.force = append(s.force, forced[group[k]])
				if array {
					s.tasks = append(s.tasks, index[group[k]])
				}
			}
			return s, d
		}
		all := make([]int, len(group))
		for k := range all {
			all[k] = k
		}
		if s, d := newSub(all); s.setDeps(subs, d) {
			add(s)
			continue
		}
		// The instances wait for different things in a way one array
		// cannot say: one array per set of dependencies.
		var keys []string
		parts := map[string][]int{}
		for k, d := range deps {
			key := fmt.Sprint(d)
			if _, ok := parts[key]; !ok {
				keys = append(keys, key)
			}
			parts[key] = append(parts[key], k)
		}
		for _, key := range keys {
			s, d := newSub(parts[key])
			s.setDeps(subs, d) // equal dependencies: always expressible
			add(s)
		}
	}
	return subs
}

// setDeps expresses the dependencies of s (deps[k] those of s.insts[k])
// with afterok and aftercorr. It reports false if one sbatch call cannot
// say them; it never does when all instances have equal dependencies.
func (s *submission) setDeps(subs []*submission, deps [][]taskRef) bool {
	var ups []int
	for _, d := range deps {
		for _, t := range d {
			if !slices.Contains(ups, t.sub) {
				ups = append(ups, t.sub)
			}
		}
	}
	slices.Sort(ups)
	s.after, s.afterTasks, s.corr = nil, nil, nil
	for _, u := range ups {
		tasksOf := func(k int) []int {
			var ts []int
			for _, t := range deps[k] {
				if t.sub == u {
					ts = append(ts, t.task)
				}
			}
			return ts
		}
		first := tasksOf(0)
		same := true
		for k := 1; k < len(deps) && same; k++ {
			same = slices.Equal(tasksOf(k), first)
		}
		up := subs[u]
		switch {
		case same && (up.tasks == nil || len(first) == len(up.tasks)):
			s.after = append(s.after, u)
		case same:
			for _, t := range first {
				s.afterTasks = append(s.afterTasks, taskRef{u, t})
			}
		default:
			if s.tasks == nil || up.tasks == nil {
				return false
			}
			for k := range deps {
				if ts := tasksOf(k); len(ts) != 1 || ts[0] != s.tasks[k] {
					return false
				}
			}
			s.corr = append(s.corr, u)
		}
	}
	return true
}

// dependency renders the --dependency value given the submissions' job IDs.
func (s *submission) dependency(ids []string) string {
	var ok []string
	for _, u := range s.after {
		ok = append(ok, ids[u])
	}
	for _, t := range s.afterTasks {
		ok = append(ok, t.jobRef(ids))
	}
	var parts []string
	if len(ok) > 0 {
		parts = append(parts, "afterok:"+strings.Join(ok, ":"))
	}
	if len(s.corr) > 0 {
		var corr []string
		for _, u := range s.corr {
			corr = append(corr, ids[u])
		}
		parts = append(parts, "aftercorr:"+strings.Join(corr, ":"))
	}
	return strings.Join(parts, ",")
}

// ranges writes sorted task IDs as Slurm's --array list: "0-3,5,7-8".
func ranges(tasks []int) string {
	var parts []string
	for i := 0; i < len(tasks); {
		j := i
		for j+1 < len(tasks) && tasks[j+1] == tasks[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(tasks[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", tasks[i], tasks[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// slurmDir holds Slurm's output files of the jobs.
func slurmDir(c *Config) string { return filepath.Join(c.DataDir, ".slurm") }

// outputPath is the file Slurm writes a job's own stdout and stderr to.
func outputPath(c *Config, s *Stage, job string) string {
	return filepath.Join(slurmDir(c), s.Name+"-"+job+".out")
}

// sbatchArgs are the options of the sbatch call of s; the job script comes
// on standard input.
func (sl *Slurm) sbatchArgs(c *Config, s *submission, ids []string) []string {
	pattern := "%j"
	if s.tasks != nil {
		pattern = "%A_%a"
	}
	args := []string{
		"--parsable",
		"--job-name=" + s.stage.Name,
		"--chdir=" + c.Dir,
		"--output=" + outputPath(c, s.stage, pattern),
		"--kill-on-invalid-dep=yes",
	}
	if s.tasks != nil {
		args = append(args, "--array="+ranges(s.tasks))
	}
	if dep := s.dependency(ids); dep != "" {
		args = append(args, "--dependency="+dep)
	}
	args = append(args, s.stage.Resources.args()...)
	if sl.Partition != "" {
		args = append(args, "--partition="+sl.Partition)
	}
	if sl.Account != "" {
		args = append(args, "--account="+sl.Account)
	}
	return append(args, sl.Options...)
}

// instanceKey identifies what an instance runs (binary and arguments), so a
// job can tell whether the config it reads still describes the instance it
// was submitted for.
func instanceKey(inst *Instance) string {
	d := sha256.New()
	fmt.Fprintf(d, "%s\x00", inst.Stage.Run[0])
	for _, a := range inst.Args {
		fmt.Fprintf(d, "%d %s\x00", len(a), a)
	}
	return hex.EncodeToString(d.Sum(nil))[:16]
}

// configPath is the absolute path of the config file, which jobs reread.
func configPath(c *Config) string { return filepath.Join(c.Dir, filepath.Base(c.File)) }

// script is the job script of s: it picks the instance of its array task
// and runs the pipeline binary's job subcommand on it.
func script(c *Config, s *submission, pipelineBin, binDir string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "# pipeline: stage %s of %s\n", s.stage.Name, configPath(c))
	argsOf := func(k int) string {
		var a []string
		if s.force[k] {
			a = append(a, "--force")
		}
		a = append(a, "--expect="+instanceKey(s.insts[k]), shellQuote(s.insts[k].ID))
		return strings.Join(a, " ")
	}
	if s.tasks == nil {
		fmt.Fprintf(&b, "set -- %s\n", argsOf(0))
	} else {
		b.WriteString("case \"${SLURM_ARRAY_TASK_ID-}\" in\n")
		for k, t := range s.tasks {
			fmt.Fprintf(&b, "%d) set -- %s ;;\n", t, argsOf(k))
		}
		b.WriteString("*) echo \"pipeline: no instance for array task ${SLURM_ARRAY_TASK_ID-}\" >&2; exit 2 ;;\n")
		b.WriteString("esac\n")
	}
	fmt.Fprintf(&b, "exec %s %s %s %s \"$@\"\n", shellQuote(pipelineBin), batchName,
		shellQuote("--config="+configPath(c)), shellQuote("--bin="+binDir))
	return b.String()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

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
func (sl *Slurm) states(ctx context.Context, ids []string, want []string) (map[string]jobState, error) {
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
			"--format=JobID,State,ExitCode", "--jobs="+strings.Join(missing, ","))
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
