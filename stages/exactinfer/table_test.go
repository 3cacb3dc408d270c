package exactinfer

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// The comparison table of docs/exact.md: exact-infer on the stand-in of
// every kind of UAI 2014 model (mrf.UAIKinds) beside the published times of
// other exact solvers on the competition's models. TestExactTable checks
// the table in the file against the kinds and the published figures; with
//
//	go test ./stages/exactinfer -run TestExactTable -exact-table ../../docs/exact.md
//
// it measures every kind (each run a child process: the stage's in-process
// seconds from estimates.parquet, the whole process's wall time and peak
// resident memory, medians of tableRuns runs after a warm-up) and rewrites
// the table between the markers.
var tableFile = flag.String("exact-table", "", "measure every UAI kind with exact-infer and write the comparison table into this markdown file")

const (
	tableRuns   = 7
	tableBegin  = "<!-- exact-table begin: written by go test ./stages/exactinfer -run TestExactTable -exact-table FILE -->"
	tableEnd    = "<!-- exact-table end -->"
	childModels = "EXACT_TABLE_MODELS" // set in a child: the models directory to solve
	childOut    = "EXACT_TABLE_OUT"
	childSplit  = "EXACT_TABLE_SPLIT" // set in a child: the kind to plan and solve, timed apart
)

// peer holds the published per-model seconds of the other solvers on the
// competition's model of a kind (TensorInference.jl's benchmark, an Intel
// i9-9900K), as strings: some are ranges over several models.
type peer struct {
	ti, jt, merlin, libdai string
	tiSeconds              float64 // TI's figure (the lower end of a range), for the target
}

var peers = map[string]peer{
	"potts":        {"0.09", "0.13", "3.5", "8.0", 0.09},
	"potts-dense":  {"0.59", "1.06", "10.7", "23.7", 0.59},
	"grid20":       {"0.45-0.66", "1.51", "43", "73-75", 0.45},
	"csp":          {"0.014", "0.009", "0.09", "0.39", 0.014},
	"mln":          {"0.046", "1.05", "256", "4.9", 0.046},
	"promedas":     {"0.019", "0.017", "10.2", "1.6", 0.019},
	"pedigree":     {"0.021", "0.019", "0.09", "0.63", 0.021},
	"segmentation": {"0.028", "0.019", "0.13", "0.23", 0.028},
}

// target is the time exact-infer must stay within on a kind:
// TensorInference.jl's time times 1.5, at least 0.05 s.
func target(p peer) float64 { return max(1.5*p.tiSeconds, 0.05) }

func TestMain(m *testing.M) {
	if kind := os.Getenv(childSplit); kind != "" {
		if err := planThenSolve(kind, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(childModels); dir != "" {
		// A child of the table's measurement: one exact-infer run.
		if err := Run(context.Background(), Params{Models: dir, Options: exact.DefaultOptions()}, os.Getenv(childOut), io.Discard); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// planThenSolve plans kind's stand-in (exact.Prepare) and solves it along
// the plan, as exact-infer does, and writes the seconds of each to w.
func planThenSolve(kind string, w io.Writer) error {
	kinds := mrf.UAIKinds()
	i := slices.IndexFunc(kinds, func(k mrf.UAIKind) bool { return k.Name == kind })
	if i < 0 {
		return fmt.Errorf("no kind %q", kind)
	}
	k := kinds[i]
	m, err := k.Build(k.Seed)
	if err != nil {
		return err
	}
	start := time.Now()
	pr, err := exact.Prepare(m, exact.DefaultOptions())
	if err != nil {
		return err
	}
	planned := time.Now()
	if _, err := pr.Solve(context.Background()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%g %g\n", planned.Sub(start).Seconds(), time.Since(planned).Seconds())
	return err
}

// static returns the columns of a kind's row that do not depend on a
// measurement.
func static(k mrf.UAIKind) []string {
	p := peers[k.Name]
	return []string{k.Name, k.Shape, fmt.Sprintf("%.3g", target(p)), p.ti, p.jt, p.merlin, p.libdai}
}

func tableHeader() string {
	return "| kind | stand-in (seeded, core/mrf/uaikinds.go) | exact-infer s (fastest) | of target | planning s | solving s | whole process s | peak memory | target s | TensorInference.jl | JunctionTrees.jl | Merlin | libDAI |\n" +
		"|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
}

// row writes a kind's row: static columns around the measured ones.
func row(k mrf.UAIKind, inproc, fastest, planning, solving float64, whole, peakMiB string) string {
	s := static(k)
	measured := []string{fmt.Sprintf("%.3f (%.3f)", inproc, fastest), fmt.Sprintf("%.2fx", inproc/target(peers[k.Name])),
		fmt.Sprintf("%.3f", planning), fmt.Sprintf("%.3f", solving), whole, peakMiB}
	return "| " + strings.Join(append(append(s[:2:2], measured...), s[2:]...), " | ") + " |\n"
}

func TestExactTable(t *testing.T) {
	path := *tableFile
	if path == "" {
		path = filepath.Join("..", "..", "docs", "exact.md")
	} else {
		writeTable(t, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, tableBegin), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated table between %q and %q", path, tableBegin, tableEnd)
	}
	table := text[i+len(tableBegin) : j]
	if !strings.Contains(table, tableHeader()) {
		t.Errorf("%s: the table's header is not the generator's", path)
	}
	for _, k := range mrf.UAIKinds() {
		cols := static(k)
		line := findRow(table, k.Name)
		if line == "" {
			t.Errorf("%s: no row for kind %s", path, k.Name)
			continue
		}
		got := strings.Split(strings.Trim(line, "| "), " | ")
		if len(got) != 13 || !slices.Equal(got[:2], cols[:2]) || !slices.Equal(got[8:], cols[2:]) {
			t.Errorf("%s: row %q is not the generator's for %s (%v)", path, line, k.Name, cols)
		}
	}
}

func findRow(table, name string) string {
	sc := bufio.NewScanner(strings.NewReader(table))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "| "+name+" |") {
			return sc.Text()
		}
	}
	return ""
}

// measurement is one child run of exact-infer, and one of planThenSolve.
type measurement struct {
	inproc, whole     float64 // seconds
	peak              int64   // bytes
	planning, solving float64 // seconds, planThenSolve's
}

// writeTable measures every kind and rewrites the table in path.
func writeTable(t *testing.T, path string) {
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(old)
	i, j := strings.Index(text, tableBegin), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no markers %q and %q to write the table between", path, tableBegin, tableEnd)
	}
	load := loadAverage()
	var b strings.Builder
	b.WriteString(tableHeader())
	for _, k := range mrf.UAIKinds() {
		ms := measureKind(t, k)
		med := func(f func(measurement) float64) float64 {
			xs := make([]float64, len(ms))
			for i, m := range ms {
				xs[i] = f(m)
			}
			sort.Float64s(xs)
			return xs[len(xs)/2]
		}
		inproc := med(func(m measurement) float64 { return m.inproc })
		fastest := inproc
		for _, m := range ms {
			fastest = min(fastest, m.inproc)
		}
		whole := med(func(m measurement) float64 { return m.whole })
		peak := med(func(m measurement) float64 { return float64(m.peak) })
		planning := med(func(m measurement) float64 { return m.planning })
		solving := med(func(m measurement) float64 { return m.solving })
		b.WriteString(row(k, inproc, fastest, planning, solving, fmt.Sprintf("%.3f", whole), fmt.Sprintf("%.0f MiB", peak/(1<<20))))
		t.Logf("%s: in-process %.3f s, whole process %.3f s, peak %.0f MiB", k.Name, inproc, whole, peak/(1<<20))
	}
	// The streaming pass comes after the children: a child's peak counts
	// the pages it shares with its parent until it runs exact-infer.
	pre := fmt.Sprintf("%s\n\nMeasured %s on %s (%d cores, GOMAXPROCS %d, load average %s at the start, memory streaming %.1f ns per entry read and written), %s; medians of %d runs after a warm-up (the fastest run in parentheses). "+
		"The peers' figures are the published ones (TensorInference.jl's benchmark on an Intel i9-9900K) on the competition's models of each kind.\n\n",
		tableBegin, time.Now().UTC().Format("2006-01-02"), cpuName(), runtime.NumCPU(), runtime.GOMAXPROCS(0), load, streamNanos(), runtime.Version(), tableRuns)
	out := text[:i] + pre + b.String() + "\n" + text[j:]
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// measureKind writes kind k's stand-in as a models directory and runs
// exact-infer on it in a child process, once to warm up and tableRuns times.
func measureKind(t *testing.T, k mrf.UAIKind) []measurement {
	m, err := k.Build(k.Seed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	infos, rows := stageio.Rows([]stageio.Model{{ID: 0, Model: m, Info: mrf.Info{Name: k.Name, Graph: "uai", Seed: k.Seed, Source: "mrf.UAIKinds " + k.Name}}})
	prov, err := stageio.Provenance("table", nil, k.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := stageio.Commit(models,
		stageio.Output{Name: formats.ModelsFile, Write: func(p string) error { return formats.WriteModels(p, rows, prov) }},
		stageio.Output{Name: formats.ModelInfoFile, Write: func(p string) error { return formats.WriteModelInfo(p, infos, prov) }},
	); err != nil {
		t.Fatal(err)
	}
	var ms []measurement
	for r := 0; r <= tableRuns; r++ {
		out := filepath.Join(dir, fmt.Sprintf("out%d", r))
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childModels+"="+models, childOut+"="+out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v: %s", k.Name, err, stderr.String())
		}
		whole := time.Since(start).Seconds()
		est, _, err := formats.ReadEstimates(filepath.Join(out, formats.EstimatesFile))
		if err != nil {
			t.Fatal(err)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		planning, solving := splitRun(t, k.Name)
		if r > 0 {
			ms = append(ms, measurement{inproc: est[0].Seconds, whole: whole, peak: ru.Maxrss * 1024, planning: planning, solving: solving})
		}
	}
	return ms
}

// splitRun runs planThenSolve on kind in a child process and returns its
// seconds of planning and of solving.
func splitRun(t *testing.T, kind string) (planning, solving float64) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childSplit+"="+kind)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: planning and solving apart: %v", kind, err)
	}
	if _, err := fmt.Sscan(string(out), &planning, &solving); err != nil {
		t.Fatalf("%s: planning and solving apart: %q: %v", kind, out, err)
	}
	return planning, solving
}

// cpuName returns the processor's model name from /proc/cpuinfo, or the
// architecture where that cannot be read.
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if name, ok := strings.CutPrefix(l, "model name"); ok {
				return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
			}
		}
	}
	return runtime.GOARCH
}

// streamNanos returns the fastest of five passes of one thread scaling
// 128 MiB of float64 into another 128 MiB (beyond the caches a process
// gets), in nanoseconds per entry. Exact inference on the large kinds is
// bound by this speed, which varies with the host: it tells tables
// measured on different days apart.
func streamNanos() float64 {
	const n = 1 << 24
	src, dst := make([]float64, n), make([]float64, n)
	for i := range src {
		src[i], dst[i] = 1, 0
	}
	best := time.Duration(math.MaxInt64)
	for range 5 {
		start := time.Now()
		for i, v := range src {
			dst[i] = 1.0000001 * v
		}
		best = min(best, time.Since(start))
	}
	return float64(best.Nanoseconds()) / n
}

// loadAverage returns the one-minute load average from /proc/loadavg, or
// "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}
