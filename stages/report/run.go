package report

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
)

// Machine describes the computer the report is written on.
type Machine struct {
	CPU      string // model name from /proc/cpuinfo
	CPUs     int    // logical CPUs
	MemoryGB float64
	Go       string // Go version of the report binary
	OS, Arch string
}

// ThisMachine reads the description of this computer; parts it cannot
// find are left empty.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		if v, err := strconv.ParseFloat(strings.Fields(kb)[0], 64); err == nil {
			m.MemoryGB = v / (1 << 20)
		}
	}
	return m
}

// procField returns the value of the first "key: value" line of a /proc
// file, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// StageTime is the run time of the instances of one stage.
type StageTime struct {
	Stage     string
	Instances int     // in the plan
	Done      int     // with a stamp: completed
	Seconds   float64 // summed over the completed instances
	Max       float64 // the longest instance
}

// RunTime sums the stamps of a plan: what the completed instances took.
type RunTime struct {
	Stages          []StageTime
	Instances, Done int
	Seconds         float64   // sum over all completed instances (one core each)
	First, Last     time.Time // earliest start and latest finish
	// Parts are the stretches of time in which some completed instance was
	// running, in order: a run split over sessions or machines has one part
	// per stretch, and the pauses between them are not run time.
	Parts []Part
	// States counts the instances by pipeline.Plan.Status (up to date,
	// stale, missing); nil when the status was not taken.
	States map[string]int
	Stale  []string // IDs of stale instances, for the reader to rerun
}

// Part is one stretch of a run: from the start of an instance to the
// finish of the last instance that overlapped it or followed it within
// partGap, directly or in a chain.
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

// partGap is the longest pause that still counts as one part: the pipeline
// hashes inputs and writes stamps between instances, which takes a moment.
const partGap = time.Minute

// parts merges the intervals in which instances ran into the stretches in
// which something was running, joining those less than partGap apart.
func parts(runs []Part) []Part {
	slices.SortFunc(runs, func(a, b Part) int { return a.Start.Compare(b.Start) })
	var out []Part
	for _, r := range runs {
		if n := len(out); n > 0 && r.Start.Sub(out[n-1].End) < partGap {
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

// ReadRunTime reads the stamp of every instance of the plan.
func ReadRunTime(plan *pipeline.Plan) (RunTime, error) {
	var rt RunTime
	var runs []Part
	index := map[string]int{}
	for _, inst := range plan.Instances {
		k, ok := index[inst.Stage.Name]
		if !ok {
			rt.Stages = append(rt.Stages, StageTime{Stage: inst.Stage.Name})
			k = len(rt.Stages) - 1
			index[inst.Stage.Name] = k
		}
		st := &rt.Stages[k]
		st.Instances++
		rt.Instances++
		stamp, err := pipeline.ReadStamp(inst.OutDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return rt, err
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
	rt.Parts = parts(runs)
	return rt, nil
}

// addStatus counts the instances of the plan by their state against the
// binaries in binDir.
func (rt *RunTime) addStatus(plan *pipeline.Plan, binDir string) error {
	sts, err := plan.Status(binDir)
	if err != nil {
		return fmt.Errorf("pipeline status: %w", err)
	}
	rt.States = map[string]int{}
	for _, st := range sts {
		rt.States[st.State.String()]++
		if st.State == pipeline.Stale {
			rt.Stale = append(rt.Stale, st.Instance.ID)
		}
	}
	return nil
}

// formatDuration writes a duration in hours and minutes, or seconds when
// short.
func formatDuration(seconds float64) string {
	switch {
	case seconds < 90:
		return fmt.Sprintf("%.0f s", seconds)
	case seconds < 3600:
		return fmt.Sprintf("%.1f min", seconds/60)
	}
	return fmt.Sprintf("%.2f h", seconds/3600)
}
