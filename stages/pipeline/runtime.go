package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"
)

// RunTime sums the stamps of some instances of a plan: what the completed
// ones took, and when.
type RunTime struct {
	Stages          []StageTime
	Instances, Done int
	Seconds         float64   // sum over all completed instances (one core each)
	First, Last     time.Time // earliest start and latest finish
	// Parts are the stretches of time in which some completed instance was
	// running, in order: a run split over sessions or machines has one part
	// per stretch, and the pauses between them are not run time.
	Parts []Part
	// States counts the instances by their status (up to date, stale,
	// missing); nil when the status was not taken.
	States map[string]int
	Stale  []string // IDs of stale instances, for the reader to rerun
}

// StageTime is the run time of the instances of one stage.
type StageTime struct {
	Stage     string
	Instances int     // in the plan
	Done      int     // with a stamp: completed
	Seconds   float64 // summed over the completed instances
	Max       float64 // the longest instance
}

// Part is one stretch of a run: from the start of an instance to the
// finish of the last instance that overlapped it or followed it within
// PartGap, directly or in a chain.
type Part struct {
	Start, End time.Time
	Instances  int
	Seconds    float64 // summed run time of its instances
}

// Wall returns the part's length in seconds.
func (p Part) Wall() float64 { return p.End.Sub(p.Start).Seconds() }

// Busy returns the wall time of the run without the pauses between its
// parts, in seconds.
func (rt *RunTime) Busy() float64 {
	s := 0.0
	for _, p := range rt.Parts {
		s += p.Wall()
	}
	return s
}

// PartGap is the longest pause that still counts as one part: the pipeline
// hashes inputs and writes stamps between instances, which takes a moment.
const PartGap = time.Minute

// Parts merges the intervals in which instances ran into the stretches in
// which something was running, joining those less than PartGap apart.
func Parts(runs []Part) []Part {
	slices.SortFunc(runs, func(a, b Part) int { return a.Start.Compare(b.Start) })
	var out []Part
	for _, r := range runs {
		if n := len(out); n > 0 && r.Start.Sub(out[n-1].End) < PartGap {
			p := &out[n-1]
			if r.End.After(p.End) {
				p.End = r.End
			}
			p.Instances += r.Instances
			p.Seconds += r.Seconds
			continue
		}
		out = append(out, r)
	}
	return out
}

// RunTime reads the stamp of every instance of insts (instances of p), and,
// unless binDir is empty, counts them by state against the binaries in
// binDir as Status does on a plan of those instances alone (statusErr says
// why that failed).
func (p *Plan) RunTime(insts []*Instance, binDir string) (rt RunTime, statusErr, err error) {
	var runs []Part
	index := map[string]int{}
	for _, inst := range insts {
		k, ok := index[inst.Stage.Name]
		if !ok {
			rt.Stages = append(rt.Stages, StageTime{Stage: inst.Stage.Name})
			k = len(rt.Stages) - 1
			index[inst.Stage.Name] = k
		}
		st := &rt.Stages[k]
		st.Instances++
		rt.Instances++
		stamp, err := ReadStamp(inst.OutDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return rt, nil, err
		}
		st.Done++
		rt.Done++
		st.Seconds += stamp.Seconds
		st.Max = max(st.Max, stamp.Seconds)
		rt.Seconds += stamp.Seconds
		if rt.First.IsZero() || stamp.Started.Before(rt.First) {
			rt.First = stamp.Started
		}
		if stamp.Finished.After(rt.Last) {
			rt.Last = stamp.Finished
		}
		runs = append(runs, Part{Start: stamp.Started, End: stamp.Finished, Instances: 1, Seconds: stamp.Seconds})
	}
	rt.Parts = Parts(runs)
	if binDir != "" {
		rt.States, rt.Stale, statusErr = p.tally(insts, binDir)
	}
	return rt, statusErr, nil
}

// tally counts insts by state and lists the stale ones.
func (p *Plan) tally(insts []*Instance, binDir string) (map[string]int, []string, error) {
	sts, err := (&Plan{Config: p.Config, Instances: insts}).Status(binDir)
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline status: %w", err)
	}
	counts := map[string]int{}
	var stale []string
	for _, st := range sts {
		counts[st.State.String()]++
		if st.State == Stale {
			stale = append(stale, st.Instance.ID)
		}
	}
	return counts, stale, nil
}
