package report

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
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

// StageTable is the table of the stages' run time, with only the stages
// that took a minute or more or have not finished if slow is set; "" when
// it has no row.
func (rt runTime) StageTable(slow bool) string {
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

// PartsTable is the table of the run's parts.
func (rt runTime) PartsTable() string {
	g := &grid{head: []string{"part", "from (UTC)", "to (UTC)", "wall time", "instances", "summed time"}, right: []bool{false, false, false, true, true, true}, tight: true}
	for i, pt := range rt.Parts {
		g.add(fmt.Sprint(i+1), pt.Start.UTC().Format(time.DateTime), pt.End.UTC().Format(time.DateTime), formatDuration(pt.Wall()), fmt.Sprint(pt.Instances), formatDuration(pt.Seconds))
	}
	return g.String()
}
