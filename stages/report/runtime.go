package report

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
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
	// States counts the instances by their status (up to date, stale,
	// missing); nil when the status was not taken.
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

// StageTable is the table of the stages' run time, with only the stages
// that took a minute or more or have not finished if slow is set; "" when
// it has no row.
func (rt RunTime) StageTable(slow bool) string {
	g := &grid{head: []string{"stage", "instances done", "summed time", "longest instance"}, right: []bool{false, true, true, true}, tight: true}
	for _, st := range rt.Stages {
		if !slow || st.Seconds >= 60 || st.Done < st.Instances {
			g.add(st.Stage, fmt.Sprintf("%d / %d", st.Done, st.Instances), formatDuration(st.Seconds), formatDuration(st.Max))
		}
	}
	if len(g.rows) == 0 {
		return ""
	}
	return g.String()
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

// readRunTime reads the stamp of every instance of insts, and, unless
// binDir is empty, counts them by state against the binaries in binDir
// (statusErr says why that failed).
func readRunTime(p *plan, insts []*instance, binDir string) (rt RunTime, statusErr, err error) {
	var runs []Part
	index := map[string]int{}
	for _, inst := range insts {
		k, ok := index[inst.stage]
		if !ok {
			rt.Stages = append(rt.Stages, StageTime{Stage: inst.stage})
			k = len(rt.Stages) - 1
			index[inst.stage] = k
		}
		st := &rt.Stages[k]
		st.Instances++
		rt.Instances++
		stamp, done, err := readStamp(inst.outDir)
		if err != nil {
			return rt, nil, err
		}
		if !done {
			continue
		}
		st.Done++
		rt.Done++
		st.Seconds += stamp.seconds
		st.Max = max(st.Max, stamp.seconds)
		rt.Seconds += stamp.seconds
		if rt.First.IsZero() || stamp.started.Before(rt.First) {
			rt.First = stamp.started
		}
		if stamp.finished.After(rt.Last) {
			rt.Last = stamp.finished
		}
		runs = append(runs, Part{Start: stamp.started, End: stamp.finished, Instances: 1, Seconds: stamp.seconds})
	}
	rt.Parts = parts(runs)
	if binDir != "" {
		rt.States, rt.Stale, statusErr = p.status(insts, binDir)
	}
	return rt, statusErr, nil
}

// PartsTable is the table of the run's parts.
func (rt RunTime) PartsTable() string {
	g := &grid{head: []string{"part", "from (UTC)", "to (UTC)", "wall time", "instances", "summed time"}, right: []bool{false, false, false, true, true, true}, tight: true}
	for i, pt := range rt.Parts {
		g.add(fmt.Sprint(i+1), pt.Start.UTC().Format(time.DateTime), pt.End.UTC().Format(time.DateTime), formatDuration(pt.Wall()), fmt.Sprint(pt.Instances), formatDuration(pt.Seconds))
	}
	return g.String()
}
