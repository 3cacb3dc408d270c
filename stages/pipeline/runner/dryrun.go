package runner

import (
	"fmt"
	"io"
	"strings"

	"github.com/renn-go/renn/stages/pipeline"
)

// Step is what a run would do with one instance, judged on the files as
// they are now.
type Step struct {
	Instance *pipeline.Instance
	Action   string // "run", "maybe" (only if an upstream rerun changes its inputs) or "skip"
	Reason   string
}

// decide judges every selected instance in plan order. An instance whose
// own files are current but whose upstream reruns is "maybe".
func (r *Runner) decide(p *pipeline.Plan) (steps []Step, forced map[*pipeline.Instance]bool, err error) {
	targets, forced, err := r.targets(p)
	if err != nil {
		return nil, nil, err
	}
	var insts []*pipeline.Instance
	for _, inst := range p.Instances {
		if targets[inst] {
			insts = append(insts, inst)
		}
	}
	steps, err = r.Steps(p, insts, forced)
	return steps, forced, err
}

// Steps judges insts, given in plan order, as DryRun does: forced are the
// instances that run even when up to date.
func (r *Runner) Steps(p *pipeline.Plan, insts []*pipeline.Instance, forced map[*pipeline.Instance]bool) ([]Step, error) {
	h := pipeline.NewJudge()
	var steps []Step
	reruns := map[*pipeline.Instance]bool{}
	for _, inst := range insts {
		st, _, err := h.Assess(p, inst, r.BinDir)
		if err != nil {
			return nil, err
		}
		s := Step{Instance: inst}
		switch {
		case forced[inst]:
			s.Action, s.Reason = "run", "forced"
		case st.State != pipeline.UpToDate:
			s.Action, s.Reason = "run", st.State.String()+": "+st.Reason
		default:
			s.Action, s.Reason = "skip", "up to date"
			for _, d := range inst.Deps {
				if reruns[d] {
					s.Action = "maybe"
					s.Reason = "upstream " + d.ID + " reruns; runs only if that changes its inputs"
					break
				}
			}
		}
		reruns[inst] = s.Action != "skip"
		steps = append(steps, s)
	}
	return steps, nil
}

// DryRun writes what Run would do, without running or changing anything:
// for each selected instance in order, whether it runs and why, and its
// command line. An instance whose own files are current but whose upstream
// reruns is shown as "maybe": it reruns only if that changes its inputs.
// With Batch set it also writes what the batch scheduler would be asked.
func (r *Runner) DryRun(p *pipeline.Plan, w io.Writer) error {
	steps, forced, err := r.decide(p)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, s := range steps {
		counts[s.Action]++
	}
	fmt.Fprintf(w, "plan: %d instances: %d to run, %d maybe, %d up to date (dry run: nothing runs)\n",
		len(steps), counts["run"], counts["maybe"], counts["skip"])
	var runs []*pipeline.Instance
	for i, s := range steps {
		fmt.Fprintf(w, "%3d. %-5s %s  (%s)\n", i+1, s.Action, s.Instance.ID, s.Reason)
		if s.Action != "skip" {
			argv := append([]string{p.Config.Rel(pipeline.BinaryPath(r.BinDir, s.Instance.Stage))}, s.Instance.Args...)
			fmt.Fprintf(w, "       %s\n", strings.Join(argv, " "))
			runs = append(runs, s.Instance)
		}
	}
	if r.Batch != nil {
		return r.Batch.WriteDryRun(w, p, runs, forced)
	}
	return nil
}
