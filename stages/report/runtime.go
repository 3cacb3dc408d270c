package report

import (
	"os"
	"runtime"
	"strconv"
	"strings"
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
	b, _ := os.ReadFile(path) // a file it cannot read has no fields
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
