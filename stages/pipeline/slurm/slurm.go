package slurm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
)

// Cluster is the Slurm executor's settings; as a runner.Runner's Batch it
// submits every out-of-date instance of a run with sbatch (see the package
// documentation).
type Cluster struct {
	Partition string   // sbatch --partition; "" leaves it to Slurm
	Account   string   // sbatch --account; "" leaves it to Slurm
	Options   []string // further sbatch options, one argument each, e.g. "--qos=short"

	// Pipeline is the pipeline binary the jobs run; it must be reachable
	// at this path from every node. Empty: <BinDir>/pipeline, where the
	// pipeline's build puts it.
	Pipeline string
	// NoWait makes the run return once every job is submitted, with
	// outcome runner.Submitted; pipeline status follows them.
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

// slurmDir holds Slurm's output files of the jobs.
func slurmDir(c *config.Config) string { return filepath.Join(c.DataDir, ".slurm") }

// outputPath is the file Slurm writes a job's own stdout and stderr to.
func outputPath(c *config.Config, s *config.Stage, job string) string {
	return filepath.Join(slurmDir(c), s.Name+"-"+job+".out")
}

// sbatchArgs are the options of the sbatch call of s; the job script comes
// on standard input.
func (sl *Cluster) sbatchArgs(c *config.Config, s *submission, ids []string) []string {
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
	args = append(args, sbatchResources(s.stage.Resources)...)
	if sl.Partition != "" {
		args = append(args, "--partition="+sl.Partition)
	}
	if sl.Account != "" {
		args = append(args, "--account="+sl.Account)
	}
	return append(args, sl.Options...)
}

// sbatchResources renders r as sbatch options.
func sbatchResources(r config.Resources) []string {
	return []string{
		"--cpus-per-task=" + strconv.Itoa(r.CPUs),
		"--mem=" + r.Memory,
		"--time=" + r.Time,
	}
}

// instanceKey identifies what an instance runs (binary and arguments), so a
// job can tell whether the config it reads still describes the instance it
// was submitted for.
func instanceKey(inst *pipeline.Instance) string {
	d := sha256.New()
	fmt.Fprintf(d, "%s\x00", inst.Stage.Run[0])
	for _, a := range inst.Args {
		fmt.Fprintf(d, "%d %s\x00", len(a), a)
	}
	return hex.EncodeToString(d.Sum(nil))[:16]
}

// configPath is the absolute path of the config file, which jobs reread.
func configPath(c *config.Config) string { return filepath.Join(c.Dir, filepath.Base(c.File)) }

// script is the job script of s: it picks the instance of its array task
// and runs the pipeline binary's job subcommand on it.
func script(c *config.Config, s *submission, pipelineBin, binDir string) string {
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

// defaultTailLines is how many lines of a failed job's stderr are kept
// unless Cluster.TailLines says otherwise.
const defaultTailLines = 20

func (sl *Cluster) tailLines() int {
	if sl.TailLines <= 0 {
		return defaultTailLines
	}
	return sl.TailLines
}

// WriteDryRun writes the sbatch calls a run would make for runs.
func (sl *Cluster) WriteDryRun(w io.Writer, p *pipeline.Plan, runs []*pipeline.Instance, forced map[*pipeline.Instance]bool) error {
	subs := planSubmissions(p, runs, forced)
	calls := "calls"
	if len(subs) == 1 {
		calls = "call"
	}
	fmt.Fprintf(w, "slurm: %d sbatch %s (job IDs shown as $1, $2, ...; each job runs its instance only if still out of date when it starts):\n", len(subs), calls)
	ids := make([]string, len(subs))
	for i := range ids {
		ids[i] = fmt.Sprintf("$%d", i+1)
	}
	for i, s := range subs {
		fmt.Fprintf(w, "%3s  sbatch %s\n", ids[i], strings.Join(sl.sbatchArgs(p.Config, s, ids), " "))
		for k, inst := range s.insts {
			if s.tasks != nil {
				fmt.Fprintf(w, "       task %d: %s\n", s.tasks[k], inst.ID)
			}
		}
	}
	return nil
}
