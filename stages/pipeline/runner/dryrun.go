package runner

import (
	"fmt"
	"io"
	"strings"

	"github.com/renn-go/renn/stages/pipeline"
)

// step is what a run would do with one instance, judged on the files as
// they are now.
type step struct {
	inst   *pipeline.Instance
	action string // "run", "maybe" (only if an upstream rerun changes its inputs) or "skip"
	reason string
}

// decide judges every selected instance in plan order. An instance whose
// own files are current but whose upstream reruns is "maybe".
func (r *Runner) decide(p *pipeline.Plan) ([]step, error) {
	targets, forced, err := r.targets(p)
	if err != nil {
		return nil, err
	}
	var insts []*pipeline.Instance
	for _, inst := range p.Instances {
		if targets[inst] {
			insts = append(insts, inst)
		}
	}
	return r.stepsFor(p, pipeline.NewJudge(), insts, forced)
}

// stepsFor judges insts, given in plan order, as decide does.
func (r *Runner) stepsFor(p *pipeline.Plan, h *pipeline.Judge, insts []*pipeline.Instance, forced map[*pipeline.Instance]bool) ([]step, error) {
	var steps []step
	reruns := map[*pipeline.Instance]bool{}
	for _, inst := range insts {
		st, _, err := h.Assess(p, inst, r.BinDir)
		if err != nil {
			return nil, err
		}
		s := step{inst: inst}
		switch {
		case forced[inst]:
			s.action, s.reason = "run", "forced"
		case st.State != pipeline.UpToDate:
			s.action, s.reason = "run", st.State.String()+": "+st.Reason
		default:
			s.action, s.reason = "skip", "up to date"
			for _, d := range inst.Deps {
				if reruns[d] {
					s.action = "maybe"
					s.reason = "upstream " + d.ID + " reruns; runs only if that changes its inputs"
					break
				}
			}
		}
		reruns[inst] = s.action != "skip"
		steps = append(steps, s)
	}
	return steps, nil
}

// DryRun writes what Run would do, without running or changing anything:
// for each selected instance in order, whether it runs and why, and its
// command line. An instance whose own files are current but whose upstream
// reruns is shown as "maybe": it reruns only if that changes its inputs.
// With Slurm set it also writes the sbatch submissions.
func (r *Runner) DryRun(p *pipeline.Plan, w io.Writer) error {
	steps, err := r.decide(p)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, s := range steps {
		counts[s.action]++
	}
	fmt.Fprintf(w, "plan: %d instances: %d to run, %d maybe, %d up to date (dry run: nothing runs)\n",
		len(steps), counts["run"], counts["maybe"], counts["skip"])
	for i, s := range steps {
		fmt.Fprintf(w, "%3d. %-5s %s  (%s)\n", i+1, s.action, s.inst.ID, s.reason)
		if s.action != "skip" {
			argv := append([]string{p.Config.Rel(pipeline.BinaryPath(r.BinDir, s.inst.Stage))}, s.inst.Args...)
			fmt.Fprintf(w, "       %s\n", strings.Join(argv, " "))
		}
	}
	if r.Slurm != nil {
		return r.dryRunSlurm(p, steps, w)
	}
	return nil
}

// dryRunSlurm writes the sbatch calls a run would make.
func (r *Runner) dryRunSlurm(p *pipeline.Plan, steps []step, w io.Writer) error {
	var runs []*pipeline.Instance
	for _, s := range steps {
		if s.action != "skip" {
			runs = append(runs, s.inst)
		}
	}
	_, forced, err := r.targets(p)
	if err != nil {
		return err
	}
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
		fmt.Fprintf(w, "%3s  sbatch %s\n", ids[i], strings.Join(r.Slurm.sbatchArgs(p.Config, s, ids), " "))
		for k, inst := range s.insts {
			if s.tasks != nil {
				fmt.Fprintf(w, "       task %d: %s\n", s.tasks[k], inst.ID)
			}
		}
	}
	return nil
}
