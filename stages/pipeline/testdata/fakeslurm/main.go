// Command fakeslurm stands in for Slurm's sbatch, squeue, sacct and scancel
// in the pipeline tests; it acts as the command it is called as (through a
// symlink). Its state is a JSON file in $FAKESLURM_DIR.
//
// sbatch runs the job script at once, each array task in turn, unless
// $FAKESLURM_HOLD is set (the tasks stay PENDING). Dependencies are checked
// then: a task whose afterok or aftercorr dependency did not complete is
// CANCELLED with reason DependencyNeverSatisfied, as with
// --kill-on-invalid-dep=yes. $FAKESLURM_SBATCH_FAIL=N makes the N-th sbatch
// call fail. squeue prints the format the pipeline asks for;
// $FAKESLURM_FORGET hides finished jobs from it. sacct fails as on a
// cluster without accounting if $FAKESLURM_NOSACCT is set.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

type task struct {
	Ref    string `json:"ref"`
	Array  string `json:"array"`
	State  string `json:"state"`
	Reason string `json:"reason"`
	Wait   int    `json:"wait"` // wait status: exit code << 8
}

type submission struct {
	ID     string   `json:"id"`
	Args   []string `json:"args"`
	Script string   `json:"script"`
}

type state struct {
	Next      int          `json:"next"`
	Calls     int          `json:"calls"`
	Tasks     []*task      `json:"tasks"`
	Submitted []submission `json:"submitted"`
	Cancelled []string     `json:"cancelled"`
}

func main() {
	dir := os.Getenv("FAKESLURM_DIR")
	if dir == "" {
		fail(2, "FAKESLURM_DIR not set")
	}
	path := filepath.Join(dir, "state.json")
	var st state
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &st); err != nil {
			fail(2, err.Error())
		}
	}
	code := 0
	switch name := filepath.Base(os.Args[0]); name {
	case "sbatch":
		code = sbatch(&st, dir, os.Args[1:])
	case "squeue":
		code = squeue(&st, os.Args[1:])
	case "sacct":
		code = sacct(&st, os.Args[1:])
	case "scancel":
		for _, id := range os.Args[1:] {
			st.Cancelled = append(st.Cancelled, id)
			for _, t := range st.Tasks {
				if (t.Ref == id || t.Array == id) && (t.State == "PENDING" || t.State == "RUNNING") {
					t.State, t.Reason = "CANCELLED", "None"
				}
			}
		}
	default:
		fail(2, "fakeslurm: called as "+name)
	}
	b, err := json.MarshalIndent(&st, "", " ")
	// Write and rename: a caller's context may kill this process mid-write
	// (squeue during a cancelled run), and readers must never see half a file.
	if err == nil {
		err = os.WriteFile(path+".tmp", b, 0o644)
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err != nil {
		fail(2, err.Error())
	}
	os.Exit(code)
}

func fail(code int, msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}

// flag returns the value of --name=value in args.
func flag(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func (st *state) find(ref string) *task {
	for _, t := range st.Tasks {
		if t.Ref == ref {
			return t
		}
	}
	return nil
}

func sbatch(st *state, dir string, args []string) int {
	st.Calls++
	if n, _ := strconv.Atoi(os.Getenv("FAKESLURM_SBATCH_FAIL")); n == st.Calls {
		fmt.Fprintln(os.Stderr, "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified")
		return 1
	}
	script, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(2, err.Error())
	}
	st.Next++
	id := strconv.Itoa(st.Next)
	st.Submitted = append(st.Submitted, submission{ID: id, Args: args, Script: string(script)})
	var tasks []string // "" for a single job
	if spec, ok := flag(args, "array"); ok {
		for _, part := range strings.Split(spec, ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			a, _ := strconv.Atoi(lo)
			b := a
			if isRange {
				b, _ = strconv.Atoi(hi)
			}
			for i := a; i <= b; i++ {
				tasks = append(tasks, strconv.Itoa(i))
			}
		}
	} else {
		tasks = []string{""}
	}
	dep, _ := flag(args, "dependency")
	chdir, _ := flag(args, "chdir")
	output, _ := flag(args, "output")
	for _, tid := range tasks {
		ref := id
		if tid != "" {
			ref = id + "_" + tid
		}
		t := &task{Ref: ref, Array: id, State: "PENDING", Reason: "None"}
		st.Tasks = append(st.Tasks, t)
		if os.Getenv("FAKESLURM_HOLD") != "" {
			continue
		}
		if !st.satisfied(dep, tid) {
			t.State, t.Reason = "CANCELLED", "DependencyNeverSatisfied"
			continue
		}
		out := strings.NewReplacer("%A", id, "%a", tid, "%j", id).Replace(output)
		f, err := os.Create(out)
		if err != nil {
			fail(2, err.Error())
		}
		cmd := exec.Command("/bin/sh", "-s")
		cmd.Dir = chdir
		cmd.Stdin = bytes.NewReader(script)
		cmd.Stdout, cmd.Stderr = f, f
		cmd.Env = append(os.Environ(), "SLURM_JOB_ID="+id)
		if tid != "" {
			cmd.Env = append(cmd.Env, "SLURM_ARRAY_JOB_ID="+id, "SLURM_ARRAY_TASK_ID="+tid)
		}
		err = cmd.Run()
		f.Close()
		t.State = "COMPLETED"
		if ee, ok := err.(*exec.ExitError); ok {
			t.State, t.Reason, t.Wait = "FAILED", "NonZeroExitCode", ee.ExitCode()<<8
		} else if err != nil {
			fail(2, err.Error())
		}
	}
	fmt.Println(id + ";fake")
	return 0
}

// satisfied checks the dependency of array task tid ("" for a job).
func (st *state) satisfied(dep, tid string) bool {
	if dep == "" {
		return true
	}
	for _, clause := range strings.Split(dep, ",") {
		kind, ids, _ := strings.Cut(clause, ":")
		for _, id := range strings.Split(ids, ":") {
			var refs []*task
			switch kind {
			case "afterok":
				for _, t := range st.Tasks {
					if t.Ref == id || t.Array == id {
						refs = append(refs, t)
					}
				}
			case "aftercorr":
				if t := st.find(id + "_" + tid); t != nil {
					refs = append(refs, t)
				}
			default:
				fail(2, "fakeslurm: unknown dependency "+clause)
			}
			for _, t := range refs {
				if t.State != "COMPLETED" {
					return false
				}
			}
		}
	}
	return true
}

func squeue(st *state, args []string) int {
	list, _ := flag(args, "jobs")
	if f, _ := flag(args, "Format"); f != "JobArrayID:|,State:|,Reason:|,exit_code:|" {
		fail(2, "fakeslurm: squeue format "+f)
	}
	ids := strings.Split(list, ",")
	n := 0
	for _, t := range st.Tasks {
		if !slices.Contains(ids, t.Array) && !slices.Contains(ids, t.Ref) {
			continue
		}
		if os.Getenv("FAKESLURM_FORGET") != "" && t.State != "PENDING" && t.State != "RUNNING" {
			continue
		}
		fmt.Printf("%s|%s|%s|%d|\n", t.Ref, t.State, t.Reason, t.Wait)
		n++
	}
	if n == 0 {
		fmt.Fprintln(os.Stderr, "slurm_load_jobs error: Invalid job id specified")
		return 1
	}
	return 0
}

func sacct(st *state, args []string) int {
	if os.Getenv("FAKESLURM_NOSACCT") != "" {
		fmt.Fprintln(os.Stderr, "Slurm accounting storage is disabled")
		return 1
	}
	list, _ := flag(args, "jobs")
	for _, id := range strings.Split(list, ",") {
		if t := st.find(id); t != nil {
			state := t.State
			if state == "CANCELLED" {
				state = "CANCELLED by 0"
			}
			fmt.Printf("%s|%s|%d:%d\n", t.Ref, state, t.Wait>>8, t.Wait&0x7f)
		}
	}
	return 0
}
