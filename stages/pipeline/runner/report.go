package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
	"github.com/renn-go/renn/stages/pipeline/proc"
)

// Outcome is what happened to an instance in a run.
type Outcome int

const (
	Ran       Outcome = iota // ran, exited 0 and was stamped complete
	Skipped                  // up to date
	Failed                   // ran and failed, or could not be run
	Blocked                  // not run because an upstream instance failed
	Cancelled                // interrupted, or not started because of the interruption
	Submitted                // handed to Slurm, not waited for (Slurm.NoWait)
)

func (o Outcome) String() string {
	switch o {
	case Ran:
		return "ran"
	case Skipped:
		return "up to date"
	case Failed:
		return "failed"
	case Blocked:
		return "blocked"
	case Cancelled:
		return "cancelled"
	case Submitted:
		return "submitted"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Result is the outcome of one instance.
type Result struct {
	Instance *pipeline.Instance
	Outcome  Outcome
	Reason   string // why it ran, or what blocked it
	Elapsed  time.Duration
	Usage    proc.Usage // what its process used, for an instance run locally (or by this Slurm job)
	Err      error      // for Failed: a *proc.ExitError if the binary exited non-zero
	Job      string     // the Slurm job that ran it, e.g. "123_4"; "" if run locally
}

// Report lists the outcome of every instance a run considered, in plan order.
type Report struct {
	Plan    *pipeline.Plan
	Results []*Result
}

// ErrFailed is returned (wrapped) by Run when any instance failed.
var ErrFailed = errors.New("stages failed")

// newReport lists the results in plan order and says how the run ended:
// nil, interrupted (wrapping the cause of ctx) or failed (wrapping
// ErrFailed).
func newReport(ctx context.Context, p *pipeline.Plan, results map[*pipeline.Instance]*Result) (*Report, error) {
	rep := &Report{Plan: p}
	for _, inst := range p.Instances {
		if res, ok := results[inst]; ok {
			rep.Results = append(rep.Results, res)
		}
	}
	if ctx.Err() != nil {
		return rep, fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	if n := len(rep.IDs(Failed)); n > 0 {
		return rep, fmt.Errorf("%d of %d %w", n, len(rep.Results), ErrFailed)
	}
	return rep, nil
}

// IDs returns the IDs of the instances with outcome o, in plan order.
func (rep *Report) IDs(o Outcome) []string {
	var ids []string
	for _, r := range rep.Results {
		if r.Outcome == o {
			ids = append(ids, r.Instance.ID)
		}
	}
	return ids
}

// WriteSummary prints counts, each failure with the tail of its stderr,
// and where the results are.
func (rep *Report) WriteSummary(w io.Writer) {
	rep.writeCounts(w)
	for _, res := range rep.Results {
		switch res.Outcome {
		case Failed:
			rep.writeFailure(w, res)
		case Blocked:
			fmt.Fprintf(w, "blocked %s: %s\n", res.Instance.ID, res.Reason)
		}
	}
	rep.writePlaces(w)
}

func (rep *Report) writeCounts(w io.Writer) {
	counts := map[Outcome]int{}
	for _, res := range rep.Results {
		counts[res.Outcome]++
	}
	var parts []string
	for _, o := range []Outcome{Ran, Skipped, Submitted, Failed, Blocked, Cancelled} {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
		}
	}
	fmt.Fprintf(w, "pipeline: %d instances: %s\n", len(rep.Results), strings.Join(parts, ", "))
}

// writeFailure says how a failed instance ended and where its logs are,
// with the last lines it wrote.
func (rep *Report) writeFailure(w io.Writer, res *Result) {
	c := rep.Plan.Config
	var ee *proc.ExitError
	switch {
	case errors.As(res.Err, &ee) && ee.Job != "":
		fmt.Fprintf(w, "FAILED %s: Slurm job %s %s", res.Instance.ID, ee.Job, ee.State)
		if ee.Code > 0 {
			fmt.Fprintf(w, ", exit code %d", ee.Code)
		}
		fmt.Fprintf(w, "; logs in %s", c.Rel(ee.LogDir))
		if len(ee.Tail) > 0 {
			fmt.Fprintf(w, "; last lines of %s:", ee.TailFrom)
		}
		fmt.Fprintln(w)
	case errors.As(res.Err, &ee):
		fmt.Fprintf(w, "FAILED %s: %s; logs in %s; last lines of stderr:\n", res.Instance.ID, ee.Ended(), c.Rel(ee.LogDir))
	default:
		fmt.Fprintf(w, "FAILED %s: %v\n", res.Instance.ID, res.Err)
		return
	}
	for _, l := range ee.Tail {
		fmt.Fprintf(w, "    | %s\n", l)
	}
}

// writePlaces says where the results are, a line per stage: INCOMPLETE
// when an instance has no complete output (it failed, or was interrupted or
// blocked and has no stamp of an earlier run); "not rechecked" when an
// interruption stopped the run before it judged instances whose earlier
// outputs are complete (stamped).
func (rep *Report) writePlaces(w io.Writer) {
	type place struct {
		n          int
		incomplete bool
		unchecked  bool
	}
	places := map[*config.Stage]*place{}
	var order []*config.Stage
	width := 0
	for _, res := range rep.Results {
		s := res.Instance.Stage
		pl := places[s]
		if pl == nil {
			pl = &place{}
			places[s] = pl
			order = append(order, s)
			width = max(width, len(s.Name))
		}
		pl.n++
		switch {
		case res.Outcome == Ran, res.Outcome == Skipped:
		case res.Outcome != Failed && stamped(res.Instance):
			pl.unchecked = true
		default:
			pl.incomplete = true
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "results:")
	c := rep.Plan.Config
	for _, s := range order {
		pl := places[s]
		line := fmt.Sprintf("  %-*s  %s%c", width, s.Name, c.Rel(filepath.Join(c.DataDir, s.Name)), filepath.Separator)
		if len(s.Shard) > 0 || pl.n > 1 {
			line += fmt.Sprintf(" (%d shards)", pl.n)
		}
		switch {
		case pl.incomplete:
			line += " INCOMPLETE"
		case pl.unchecked:
			line += " complete from an earlier run, not rechecked"
		}
		fmt.Fprintln(w, line)
	}
}

// stamped reports whether the output of inst holds a stamp: a complete
// output of an earlier run.
func stamped(inst *pipeline.Instance) bool {
	_, err := pipeline.ReadStamp(inst.OutDir)
	return err == nil
}
