package runner

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/internal/pipetest"
)

// fakeExecutor settles instances as scripted: those in skip at start, the
// others, once started, in the first wait after every upstream instance it
// started has ended well; those in fail fail.
type fakeExecutor struct {
	isEarly    bool
	free       int // slots; 0: any number
	skip, fail []string

	batches   [][]string // what start was given
	cancelled []string
	running   map[*pipeline.Instance]bool
	ended     map[*pipeline.Instance]Outcome
}

func (f *fakeExecutor) Early() bool { return f.isEarly }

func (f *fakeExecutor) Slots() int {
	if f.free == 0 {
		return 1 << 20
	}
	return f.free - len(f.running)
}

func (f *fakeExecutor) Start(ctx context.Context, insts []*pipeline.Instance) ([]*Result, error) {
	var ids []string
	var settled []*Result
	for _, inst := range insts {
		ids = append(ids, inst.ID)
		if slices.Contains(f.skip, inst.ID) {
			settled = append(settled, &Result{Instance: inst, Outcome: Skipped})
			f.ended[inst] = Skipped
			continue
		}
		f.running[inst] = true
	}
	f.batches = append(f.batches, ids)
	return settled, nil
}

func (f *fakeExecutor) Wait(ctx context.Context, d time.Duration) []*Result {
	var out []*Result
	for _, inst := range sortedInsts(f.running) {
		ready := true
		for _, dep := range inst.Deps {
			if o, ok := f.ended[dep]; f.running[dep] || ok && o != Ran && o != Skipped {
				ready = false
			}
		}
		if !ready {
			continue
		}
		res := &Result{Instance: inst, Outcome: Ran, Job: f.Job(inst)}
		if slices.Contains(f.fail, inst.ID) {
			res.Outcome = Failed
		}
		out = append(out, res)
	}
	for _, res := range out {
		delete(f.running, res.Instance)
		f.ended[res.Instance] = res.Outcome
	}
	return out
}

func (f *fakeExecutor) Cancel(insts []*pipeline.Instance) {
	for _, inst := range insts {
		f.cancelled = append(f.cancelled, inst.ID)
		delete(f.running, inst)
		f.ended[inst] = Cancelled
	}
}

func (f *fakeExecutor) Job(inst *pipeline.Instance) string {
	if f.isEarly {
		return "job-" + inst.ID
	}
	return ""
}

func (f *fakeExecutor) Heartbeat() (string, []any) { return "", nil }

// sortedInsts lists a set of instances by ID, so that the fake reports
// them in a fixed order (the scheduler must not depend on it).
func sortedInsts(set map[*pipeline.Instance]bool) []*pipeline.Instance {
	var out []*pipeline.Instance
	for inst := range set {
		out = append(out, inst)
	}
	slices.SortFunc(out, func(a, b *pipeline.Instance) int { return strings.Compare(b.ID, a.ID) })
	return out
}

// schedulerCase is a run of pipetest.Chain through a fake executor.
type schedulerCase struct {
	name      string
	ex        *fakeExecutor
	cancelled bool     // the run's context is cancelled before it starts
	batches   []string // the instances given to each start call
	results   []string // ID: outcome (reason) [job], in plan order
	total     int      // instances in the progress display
	stopped   []string // the instances the executor was told to cancel
}

// schedulerCases returns the cases of TestScheduler, each with a fresh
// executor.
func schedulerCases() []schedulerCase {
	return []schedulerCase{
		{"after upstream, with slots", &fakeExecutor{free: 2}, false,
			[]string{"a e", "b d", "c"},
			[]string{"a: ran", "b: ran", "c: ran", "d: ran", "e: ran"}, 5, nil},
		{"one slot", &fakeExecutor{free: 1}, false,
			[]string{"a", "b", "c", "d", "e"},
			[]string{"a: ran", "b: ran", "c: ran", "d: ran", "e: ran"}, 5, nil},
		{"failure blocks dependants before they start", &fakeExecutor{fail: []string{"a"}}, false,
			[]string{"a e"},
			[]string{"a: failed", "b: blocked (upstream a failed)", "c: blocked (upstream b blocked)",
				"d: blocked (upstream a failed)", "e: ran"}, 5, nil},
		{"early: all at once", &fakeExecutor{isEarly: true}, false,
			[]string{"a b c d e"},
			[]string{"a: ran [job-a]", "b: ran [job-b]", "c: ran [job-c]", "d: ran [job-d]", "e: ran [job-e]"}, 5, nil},
		{"early: failure blocks and cancels dependants", &fakeExecutor{isEarly: true, fail: []string{"a"}}, false,
			[]string{"a b c d e"},
			[]string{"a: failed [job-a]", "b: blocked (upstream a failed) [job-b]", "c: blocked (upstream b blocked) [job-c]",
				"d: blocked (upstream a failed) [job-d]", "e: ran [job-e]"}, 5, []string{"b", "c", "d"}},
		{"early: settled at start", &fakeExecutor{isEarly: true, skip: []string{"a", "e"}}, false,
			[]string{"a b c d e"},
			[]string{"a: up to date", "b: ran [job-b]", "c: ran [job-c]", "d: ran [job-d]", "e: up to date"}, 3, nil},
		{"settled at start frees its slot", &fakeExecutor{free: 1, skip: []string{"a", "b"}}, false,
			[]string{"a", "b", "c", "d", "e"},
			[]string{"a: up to date", "b: up to date", "c: ran", "d: ran", "e: ran"}, 3, nil},
		{"interrupted before it starts", &fakeExecutor{}, true,
			nil,
			[]string{"a: cancelled (not started)", "b: cancelled (not started)", "c: cancelled (not started)",
				"d: cancelled (not started)", "e: cancelled (not started)"}, 5, nil},
	}
}

func TestScheduler(t *testing.T) {
	_, plan := pipetest.ParsePlan(t, pipetest.Chain)
	all := map[*pipeline.Instance]bool{}
	for _, inst := range plan.Instances {
		all[inst] = true
	}
	for _, tt := range schedulerCases() {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelled {
				cancel()
			}
			f := tt.ex
			f.running, f.ended = map[*pipeline.Instance]bool{}, map[*pipeline.Instance]Outcome{}
			tr := NewProgress(nil)
			s := newScheduler(&Runner{Heartbeat: time.Hour}, plan, f, tr, all)
			if err := s.run(ctx); err != nil {
				t.Fatal(err)
			}
			var batches []string
			for _, b := range f.batches {
				batches = append(batches, strings.Join(b, " "))
			}
			pipetest.AssertLines(t, "batches", batches, tt.batches)
			pipetest.AssertLines(t, "results", resultLines(plan, s.results), tt.results)
			if tr.total != tt.total || tr.finished != tt.total && !tt.cancelled {
				t.Errorf("progress: %d of %d finished, want %d of %d", tr.finished, tr.total, tt.total, tt.total)
			}
			pipetest.AssertLines(t, "cancelled", f.cancelled, tt.stopped)
		})
	}
}

// resultLines writes the results of a run, in plan order, as "ID: outcome
// (reason) [job]", the reason only for a blocked or cancelled instance.
func resultLines(plan *pipeline.Plan, results map[*pipeline.Instance]*Result) []string {
	var lines []string
	for _, inst := range plan.Instances {
		res := results[inst]
		line := inst.ID + ": " + res.Outcome.String()
		if res.Outcome == Blocked || res.Outcome == Cancelled {
			line += " (" + res.Reason + ")"
		}
		if res.Job != "" {
			line += " [" + res.Job + "]"
		}
		lines = append(lines, line)
	}
	return lines
}
