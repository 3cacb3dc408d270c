//go:build linux

package main

// The fault-injection suite: the real binaries on a small
// project with every stage kind, killed with SIGKILL at seeded points (a
// random delay, or just after a traced event: the first commit directory,
// the first temporary file, a commit installed, the n-th stamp), run out
// of disk space (RLIMIT_FSIZE) over a complete output, and run twice at
// once. After each kill `pipeline status` must call up to date only what
// equals a clean run, no stage process of a killed `pipeline run` may live
// on, and a rerun must give the clean run's outputs (timings aside) and
// leave no stray temporary file (see strays).
//
// `go test` runs a handful of kills; RENN_FAULT=1 runs the full suite
// (at least 50 kills; .ci/run does). RENN_FAULT_SEED=S replays the kill
// points of seed S; every failure names the seed, the kill and its point.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/compare"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/build"
	"github.com/renn-go/renn/stages/pipeline/runner"
	"github.com/renn-go/renn/stages/pipeline/verify"
)

// faultConfig is the small project: every stage kind but report (which
// reads the paper pipeline's stages), two shards each, a few seconds.
const faultConfig = `data = "data"

[stage.models]
run = ["sample-model", "ising"]
flags = { graph = "grid", gamma = 1.0, count = 2, seed = 1 }
shard = { size = [3, 4] }

[stage.exact]
run = ["exact-infer"]
inputs = { models = "models" }

[stage.regions]
run = ["build-regions"]
inputs = { models = "models" }

[stage.baselines]
run = ["run-baselines"]
flags = { methods = ["mf", "bp", "gbp"] }
inputs = { models = "models", regions = "regions" }

[stage.renn]
run = ["train-renn"]
flags = { method = "renn-mp", max-steps = 100 }
inputs = { models = "models", regions = "regions" }

[stage.samples]
run = ["sample-model", "data"]
flags = { train = 200, test = 50, seed = 2 }
inputs = { models = "models" }

[stage.learn]
run = ["learn-mrf"]
flags = { method = "bp", epochs = 3, seed = 1 }
inputs = { models = "models", samples = "samples" }

[stage.score]
run = ["score"]
flags = { group = ["graph", "size", "gamma"], table = "md" }
inputs = { models = ["models"], truth = ["exact"], pred = ["baselines", "renn"] }
`

// faultKit is the state the fault tests share: the binaries, a clean run
// of the project (the reference) and the seeded source of kill points.
type faultKit struct {
	t      *testing.T
	bin    string // the binaries of cmd/
	ref    string // project directory of the clean run
	plan   *pipeline.Plan
	clean  time.Duration            // wall time of the clean pipeline run
	alone  map[string]time.Duration // wall time of each stage's last instance run alone
	seed   uint64
	rng    *rand.Rand
	killed int // processes actually ended by SIGKILL
}

func newFaultKit(t *testing.T) *faultKit {
	t.Helper()
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("fault injection needs Linux (/proc)")
	}
	root, err := build.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	k := &faultKit{t: t, bin: filepath.Join(dir, "bin"), ref: filepath.Join(dir, "ref"), alone: map[string]time.Duration{}}
	compile := exec.Command("go", "build", "-o", k.bin+string(filepath.Separator), "./cmd/...")
	compile.Dir = root
	if out, err := compile.CombinedOutput(); err != nil {
		t.Fatalf("build binaries: %v\n%s", err, out)
	}
	k.seed = 1
	if os.Getenv("RENN_FAULT") == "1" {
		k.seed = uint64(time.Now().UnixNano())
	}
	if s := os.Getenv("RENN_FAULT_SEED"); s != "" {
		if k.seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("RENN_FAULT_SEED: %v", err)
		}
	}
	t.Logf("fault seed %d (replay: RENN_FAULT_SEED=%d)", k.seed, k.seed)
	k.rng = rand.New(rand.NewPCG(k.seed, 21))

	writeFile(t, filepath.Join(k.ref, "pipeline.toml"), faultConfig)
	start := time.Now()
	if code, out := k.pipeline(k.ref, "run"); code != 0 {
		t.Fatalf("clean run: exit %d\n%s", code, out)
	}
	k.clean = time.Since(start)
	if k.plan, err = pipeline.Load(filepath.Join(k.ref, "pipeline.toml")); err != nil {
		t.Fatal(err)
	}
	for _, inst := range k.plan.Instances {
		st, err := pipeline.ReadStamp(inst.OutDir)
		if err != nil {
			t.Fatal(err)
		}
		k.alone[inst.Stage.Name] = time.Duration(st.Seconds * float64(time.Second))
	}
	t.Logf("clean run: %d instances in %s", len(k.plan.Instances), k.clean.Round(time.Millisecond))
	return k
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pipeline runs the pipeline binary on the project in dir and returns its
// exit code and combined output.
func (k *faultKit) pipeline(dir string, args ...string) (int, string) {
	cmd := exec.Command(filepath.Join(k.bin, "pipeline"), append(args, "--config", filepath.Join(dir, "pipeline.toml"), "--bin", k.bin)...)
	out, err := cmd.CombinedOutput()
	return faultExit(k.t, err), string(out)
}

func faultExit(t *testing.T, err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// project copies the reference project (its data as the clean run left
// it, or none) into a fresh directory.
func (k *faultKit) project(withData bool) string {
	dir := k.t.TempDir()
	writeFile(k.t, filepath.Join(dir, "pipeline.toml"), faultConfig)
	if withData {
		copyTree(k.t, filepath.Join(k.ref, "data"), filepath.Join(dir, "data"))
	}
	return dir
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// in is inst's output directory in the project dir.
func (k *faultKit) in(dir string, inst *pipeline.Instance) string {
	rel, err := filepath.Rel(k.ref, inst.OutDir)
	if err != nil {
		k.t.Fatal(err)
	}
	return filepath.Join(dir, rel)
}

// killPoint is when a run is killed: after a traced event (or the start),
// then Delay.
type killPoint struct {
	Event string // "" (the start), "commit", "tmp", "installed" or "stamp:N"
	Delay time.Duration
}

func (p killPoint) String() string {
	if p.Event == "" {
		return fmt.Sprintf("%s after the start", p.Delay)
	}
	return fmt.Sprintf("%s after event %q", p.Delay, p.Event)
}

// point draws a kill point for a run that takes about d.
func (k *faultKit) point(d time.Duration, pipelineRun bool) killPoint {
	events := []string{"commit", "tmp", "installed"}
	if pipelineRun {
		events = append(events, fmt.Sprintf("stamp:%d", 1+k.rng.IntN(3)))
	}
	if k.rng.IntN(2) == 0 { // within the first 80% of the run, which may be faster than d
		return killPoint{Delay: time.Duration(k.rng.Int64N(int64(d)*4/5 + 1))}
	}
	return killPoint{Event: events[k.rng.IntN(len(events))], Delay: time.Duration(k.rng.Int64N(int64(2 * time.Millisecond)))}
}

// scan counts what lies under the data directory: commit directories of
// stageio.Commit, temporary files and stamps.
func scan(data string) (commits, tmps, stamps int) {
	filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		n := d.Name()
		switch {
		case strings.HasPrefix(n, ".") && strings.Contains(n, ".commit-"):
			commits++
		case strings.Contains(n, ".tmp"):
			tmps++
		case n == pipeline.StampName:
			stamps++
		}
		return nil
	})
	return
}

// runKilled starts cmd and sends it SIGKILL at p, tracing events under
// data. It returns whether the kill ended the process (it may have exited
// first) and the process's exit error otherwise.
func (k *faultKit) runKilled(cmd *exec.Cmd, p killPoint, data string) (killed bool, children []child, err error) {
	_, _, stamps0 := scan(data)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if p.Event != "" {
		seen := false
	trace:
		for {
			commits, tmps, stamps := scan(data)
			switch {
			case p.Event == "commit" && commits > 0,
				p.Event == "tmp" && tmps > 0,
				p.Event == "installed" && seen && commits == 0:
				break trace
			case strings.HasPrefix(p.Event, "stamp:"):
				n, _ := strconv.Atoi(strings.TrimPrefix(p.Event, "stamp:"))
				if stamps-stamps0 >= n {
					break trace
				}
			}
			seen = seen || commits > 0
			select {
			case err := <-exited:
				return false, nil, exitErr(err, &out)
			case <-time.After(200 * time.Microsecond):
			}
		}
	}
	select {
	case err := <-exited:
		return false, nil, exitErr(err, &out)
	case <-time.After(p.Delay):
	}
	children = childrenOf(cmd.Process.Pid)
	cmd.Process.Signal(syscall.SIGKILL)
	err = <-exited
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			k.killed++
			return true, children, nil
		}
	}
	return false, nil, exitErr(err, &out)
}

// child is a live child process and the CPU time it had used.
type child struct {
	pid int
	cpu time.Duration
}

// childrenOf lists the live child processes of pid.
func childrenOf(pid int) []child {
	var kids []child
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime stime (fields 14, 15, in clock
		// ticks, 100 a second on Linux): comm may hold spaces, not ")".
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 12 && f[0] != "Z" && f[1] == strconv.Itoa(pid) {
			ut, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			kids = append(kids, child{c, time.Duration(ut+st) * 10 * time.Millisecond})
		}
	}
	return kids
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER: orphans of the
// processes this one started become its children, so the test can see how
// the stage processes of a killed `pipeline run` ended.
const prSetChildSubreaper = 36

func setSubreaper(t *testing.T) {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}
	t.Cleanup(func() { syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0) })
}

// orphans waits for the stage processes a killed `pipeline run` had
// started (its children, now this process's through the subreaper) and
// fails for each that did not die with it but ran on: one still alive a
// second after the kill, or one that ended otherwise than by SIGKILL
// having used more than 100 ms of CPU time since the kill. (One that
// ended by itself just before the kill used next to none.)
func (k *faultKit) orphans(children []child, what string) {
	killed := time.Now()
	for _, c := range children {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		for {
			got, err := syscall.Wait4(c.pid, &ws, syscall.WNOHANG, &ru)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil { // not ours: it ended (and was reaped) before the kill
				break
			}
			if got == c.pid {
				more := time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) - c.cpu
				if (!ws.Signaled() || ws.Signal() != syscall.SIGKILL) && more > 100*time.Millisecond {
					k.t.Errorf("%s: stage process %d ran on after pipeline run was killed (%s more CPU time, then %s)", what, c.pid, more, describeWait(ws))
				}
				break
			}
			if time.Since(killed) > time.Second {
				syscall.Kill(c.pid, syscall.SIGKILL)
				k.t.Errorf("%s: stage process %d still runs a second after pipeline run was killed", what, c.pid)
				syscall.Wait4(c.pid, &ws, 0, nil)
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func describeWait(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exit code %d", ws.ExitStatus())
}

func exitErr(err error, out *bytes.Buffer) error {
	if err != nil {
		return fmt.Errorf("%w\n%s", err, out)
	}
	return nil
}

// strays lists what a run left under data that it should not have: the
// hidden entries but the stamps, the .logs directories (holding
// stdout.log and stderr.log) and the data directory's .pipeline.lock,
// and every name with ".tmp" in it. The commit directories of stageio
// (".<dir>.commit-*", ".<dir>.old-*") and the temporary files of writers
// and stamps (".<name>-*.tmp", ".<name>.tmp*") are all among them.
func strays(data string) []string {
	var found []string
	filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == data {
			return nil
		}
		rel, _ := filepath.Rel(data, path)
		n := d.Name()
		parentLogs := filepath.Base(filepath.Dir(path)) == ".logs"
		switch {
		case parentLogs && (n == "stdout.log" || n == "stderr.log") && d.Type().IsRegular():
		case parentLogs:
			found = append(found, rel)
		case n == ".logs" && d.IsDir(), n == pipeline.StampName && d.Type().IsRegular():
		case rel == runner.LockName:
		case strings.HasPrefix(n, ".") || strings.Contains(n, ".tmp"):
			found = append(found, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return found
}

// sameOutputs says how the outputs in got differ from the clean run's in
// ref, or returns nil: CompareOutputs, but score's tables and summary.md
// are compared without the timing metric "seconds" (a row value there,
// not a column).
func sameOutputs(ref, got string) error {
	d, err := verify.CompareOutputs(context.Background(), ref, got, compareParquet)
	if err != nil {
		return err
	}
	if d == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(ref, formats.ScoresFile)); err != nil {
		return fmt.Errorf("%s: %s", got, d)
	}
	for _, cmp := range []func(a, b string) error{sameScores, sameSummary, sameMarkdown} {
		if err := cmp(ref, got); err != nil {
			return fmt.Errorf("%s: %w", got, err)
		}
	}
	return nil
}

// compareParquet is compare.Parquet as a verify.ParquetComparer.
func compareParquet(_ context.Context, cached, fresh string) (*verify.Difference, error) {
	d, err := compare.Parquet(cached, fresh)
	if d == nil || err != nil {
		return nil, err
	}
	return &verify.Difference{Column: d.Column, Row: d.Row, Element: d.Element, Cached: d.Cached, New: d.New, Note: d.Note}, nil
}

func sameScores(ref, got string) error {
	read := func(dir string) ([]formats.ScoreRow, error) {
		rows, _, err := formats.ReadScores(filepath.Join(dir, formats.ScoresFile))
		return slices.DeleteFunc(rows, func(r formats.ScoreRow) bool { return r.Metric == "seconds" }), err
	}
	a, err := read(ref)
	if err != nil {
		return err
	}
	b, err := read(got)
	if err != nil {
		return err
	}
	if !slices.Equal(a, b) {
		return fmt.Errorf("%s differs (seconds aside)", formats.ScoresFile)
	}
	return nil
}

func sameSummary(ref, got string) error {
	read := func(dir string) ([]string, error) {
		groups, rows, _, err := formats.ReadSummary(filepath.Join(dir, formats.SummaryFile))
		var s []string
		for _, r := range rows {
			if r.Metric != "seconds" {
				s = append(s, fmt.Sprint(groups, r))
			}
		}
		return s, err
	}
	a, err := read(ref)
	if err != nil {
		return err
	}
	b, err := read(got)
	if err != nil {
		return err
	}
	if !slices.Equal(a, b) {
		return fmt.Errorf("%s differs (seconds aside)", formats.SummaryFile)
	}
	return nil
}

// sameMarkdown compares summary.md without the rows of the seconds
// metric (its first row names it, the next ones leave the cell empty).
func sameMarkdown(ref, got string) error {
	read := func(dir string) ([]string, error) {
		f, err := os.Open(filepath.Join(dir, "summary.md"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var lines []string
		inSeconds := false
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := sc.Text()
			if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "|  |") {
				inSeconds = strings.HasPrefix(l, "| seconds |")
			}
			if !inSeconds {
				lines = append(lines, l)
			}
		}
		return lines, sc.Err()
	}
	a, err := read(ref)
	if err != nil {
		return err
	}
	b, err := read(got)
	if err != nil {
		return err
	}
	if !slices.Equal(a, b) {
		return errors.New("summary.md differs (seconds aside)")
	}
	return nil
}

// survivors lists the live processes running one of the kit's binaries.
func (k *faultKit) survivors() []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(exe, k.bin+string(filepath.Separator)) {
			found = append(found, fmt.Sprintf("%s (pid %d)", filepath.Base(exe), pid))
		}
	}
	return found
}

// noSurvivors fails if a process of the kit's binaries still runs a
// second after a kill, and kills those (by pid) so the test goes on.
func (k *faultKit) noSurvivors(what string) {
	deadline := time.Now().Add(time.Second)
	for len(k.survivors()) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s := k.survivors(); len(s) > 0 {
		k.t.Errorf("%s: still running after the kill: %v", what, s)
		for _, p := range s {
			pid, _ := strconv.Atoi(strings.TrimSuffix(p[strings.LastIndex(p, "pid ")+4:], ")"))
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// status runs `pipeline status` on dir and returns the instances it calls
// up to date.
func (k *faultKit) status(dir string) map[string]bool {
	code, out := k.pipeline(dir, "status")
	if code != 0 {
		k.t.Fatalf("status: exit %d\n%s", code, out)
	}
	up := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 4 && f[1] == "up" && f[2] == "to" && f[3] == "date" {
			up[f[0]] = true
		}
	}
	return up
}

// checkTruthful fails for every instance status calls up to date whose
// outputs are not the clean run's.
func (k *faultKit) checkTruthful(dir, what string) {
	up := k.status(dir)
	for _, inst := range k.plan.Instances {
		if !up[inst.ID] {
			continue
		}
		if err := sameOutputs(inst.OutDir, k.in(dir, inst)); err != nil {
			k.t.Errorf("%s: status says %s is up to date, but %v", what, inst.ID, err)
		}
	}
}

// checkComplete fails unless every instance is up to date with the clean
// run's outputs and nothing stray is left.
func (k *faultKit) checkComplete(dir, what string) {
	up := k.status(dir)
	for _, inst := range k.plan.Instances {
		if !up[inst.ID] {
			k.t.Errorf("%s: %s not up to date after the rerun", what, inst.ID)
		}
		if err := sameOutputs(inst.OutDir, k.in(dir, inst)); err != nil {
			k.t.Errorf("%s: %s: %v", what, inst.ID, err)
		}
	}
	if s := strays(filepath.Join(dir, "data")); len(s) > 0 {
		k.t.Errorf("%s: stray files after the rerun: %v", what, s)
	}
}

// stageCases are the stages run alone: the last instance of each (a
// size=4 shard, or score), the instance before it the source of a
// different previous output where there is one.
func (k *faultKit) stageCases() (insts, prevs []*pipeline.Instance) {
	last := map[string]int{}
	var names []string
	for i, inst := range k.plan.Instances {
		if _, ok := last[inst.Stage.Name]; !ok {
			names = append(names, inst.Stage.Name)
		}
		last[inst.Stage.Name] = i
	}
	for _, n := range names {
		i := last[n]
		insts = append(insts, k.plan.Instances[i])
		var prev *pipeline.Instance
		if i > 0 && k.plan.Instances[i-1].Stage.Name == n {
			prev = k.plan.Instances[i-1]
		}
		prevs = append(prevs, prev)
	}
	return insts, prevs
}

// killStage runs inst's binary alone over a previous output (none, another
// shard's or its own complete one), kills it at a seeded point, checks
// that the output directory holds the previous set or the new one, whole,
// then reruns it and checks the outputs and strays.
func (k *faultKit) killStage(n int, inst, sibling *pipeline.Instance) {
	dir := k.project(true)
	out := k.in(dir, inst)
	prev := []string{"none", "own"}
	if sibling != nil {
		prev = append(prev, "sibling")
	}
	choice := prev[k.rng.IntN(len(prev))]
	switch choice {
	case "none":
		if err := os.RemoveAll(out); err != nil {
			k.t.Fatal(err)
		}
	case "sibling":
		if err := os.RemoveAll(out); err != nil {
			k.t.Fatal(err)
		}
		copyTree(k.t, sibling.OutDir, out)
		os.Remove(filepath.Join(out, pipeline.StampName))
	}
	for try := 1; try <= 3; try++ {
		p := k.point(k.alone[inst.Stage.Name], false)
		what := fmt.Sprintf("seed %d, stage kill %d, try %d: %s alone over previous output %q, kill %s", k.seed, n, try, inst.ID, choice, p)
		cmd := exec.Command(pipeline.BinaryPath(k.bin, inst.Stage), inst.Args...)
		cmd.Dir = dir
		killed, _, err := k.runKilled(cmd, p, filepath.Join(dir, "data"))
		if err != nil {
			k.t.Fatalf("%s: the run failed: %v", what, err)
		}
		if killed {
			k.checkStage(what, dir, inst, sibling, choice)
			return
		}
		choice = "own" // it ran to the end: try again over its output
	}
}

// checkStage checks what a stage run alone and killed left: the previous
// output set or the new one, whole; then reruns it and checks that it
// completes with the clean run's outputs and nothing stray.
func (k *faultKit) checkStage(what, dir string, inst, sibling *pipeline.Instance, choice string) {
	out := k.in(dir, inst)
	names, _ := outputFiles(out)
	okPrev := false
	switch choice {
	case "none":
		okPrev = len(names) == 0
	case "own":
		okPrev = sameOutputs(inst.OutDir, out) == nil
	case "sibling":
		okPrev = sameOutputs(sibling.OutDir, out) == nil
	}
	if err := sameOutputs(inst.OutDir, out); err != nil && !okPrev {
		k.t.Errorf("%s: output is neither the previous set nor the new one: %v (files %v)", what, err, names)
	}
	cmd := exec.Command(pipeline.BinaryPath(k.bin, inst.Stage), inst.Args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		k.t.Fatalf("%s: rerun: %v\n%s", what, err, b)
	}
	if err := sameOutputs(inst.OutDir, out); err != nil {
		k.t.Errorf("%s: after the rerun: %v", what, err)
	}
	if s := strays(filepath.Join(dir, "data")); len(s) > 0 {
		k.t.Errorf("%s: stray files after the rerun: %v", what, s)
	}
}

func outputFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names, err
}

// killPipeline runs `pipeline run` on a project kills times, each killed
// at a seeded point, checking after each kill that no stage process lives
// on and that status is truthful, then reruns it to the end.
func (k *faultKit) killPipeline(n, kills int) (runs int) {
	withData := k.rng.IntN(3) == 0 // a complete project rerun with --force
	dir := k.project(withData)
	data := filepath.Join(dir, "data")
	force := withData
	for i, landed := 0, 0; landed < kills && i < 2*kills; i++ {
		runs++
		args := []string{"run"}
		if force {
			args = append(args, "--force")
		}
		p := k.point(k.clean, true)
		what := fmt.Sprintf("seed %d, pipeline chain %d, run %d: %s (data: %v), kill %s", k.seed, n, i+1, strings.Join(args, " "), withData, p)
		cmd := exec.Command(filepath.Join(k.bin, "pipeline"), append(args, "--config", filepath.Join(dir, "pipeline.toml"), "--bin", k.bin)...)
		killed, children, err := k.runKilled(cmd, p, data)
		if err != nil {
			k.t.Fatalf("%s: the run failed: %v", what, err)
		}
		force = !killed // the run completed: the next reruns it all
		if killed {
			landed++
		} else {
			what += " (exited first)"
		}
		k.orphans(children, what)
		k.noSurvivors(what)
		k.checkTruthful(dir, what)
	}
	what := fmt.Sprintf("seed %d, pipeline chain %d", k.seed, n)
	if code, out := k.pipeline(dir, "run"); code != 0 {
		k.t.Fatalf("%s: rerun: exit %d\n%s", what, code, out)
	}
	k.checkComplete(dir, what)
	return runs
}

// TestFault is the fault-injection suite: kills, a full disk and two
// runs at once, on one build of the binaries and one clean run.
func TestFault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary and runs the pipeline a few times")
	}
	k := newFaultKit(t)
	setSubreaper(t)
	for _, sub := range []struct {
		name string
		fn   func(*faultKit)
	}{{"Kills", (*faultKit).kills}, {"DiskFull", (*faultKit).diskFull}, {"Concurrent", (*faultKit).concurrent}} {
		t.Run(sub.name, func(t *testing.T) {
			k.t = t
			sub.fn(k)
		})
	}
}

// kills kills every stage binary run alone and `pipeline run`: a few
// times under go test, at least 50 times with RENN_FAULT=1.
func (k *faultKit) kills() {
	t := k.t
	stageKills, chains, chainKills := 1, 1, 2
	if os.Getenv("RENN_FAULT") == "1" {
		stageKills, chains, chainKills = 5, 4, 4
	}
	insts, sibs := k.stageCases()
	if len(insts) != 8 {
		t.Fatalf("%d stages in the fault project, want 8", len(insts))
	}
	start := time.Now()
	c := 0
	for round := 0; round < stageKills; round++ {
		for i := range insts {
			if stageKills == 1 && i%2 == 1 {
				continue // the short run: every other stage
			}
			c++
			k.killStage(c, insts[i], sibs[i])
		}
	}
	t.Logf("stages alone: %d runs, %d killed, in %s", c, k.killed, time.Since(start).Round(time.Millisecond))
	alone := k.killed
	start = time.Now()
	runs := 0
	for i := 0; i < chains; i++ {
		runs += k.killPipeline(i+1, chainKills)
	}
	t.Logf("pipeline run: %d runs, %d killed, in %s", runs, k.killed-alone, time.Since(start).Round(time.Millisecond))
	if os.Getenv("RENN_FAULT") == "1" && k.killed < 50 {
		t.Errorf("only %d of the runs were killed before they ended; want at least 50", k.killed)
	}
}

// limited returns the command running name with args under a file size
// limit of limit bytes (RLIMIT_FSIZE, SIGXFSZ ignored, so a write beyond
// it fails with EFBIG as on a full disk): through prlimit(1) where it is
// found, else through sh's ulimit -f, whose unit differs between shells,
// so only a limit of 0 is exact.
func limited(limit int, name string, args ...string) *exec.Cmd {
	if p, err := exec.LookPath("prlimit"); err == nil {
		return exec.Command(p, append([]string{fmt.Sprintf("--fsize=%d", limit), name}, args...)...)
	}
	return exec.Command("sh", append([]string{"-c", `trap "" XFSZ; ulimit -f 0; exec "$0" "$@"`, name}, args...)...)
}

// diskFull reruns every stage over its complete output with too little
// disk: the run fails (exit 1) naming the file it could not write, the
// previous output stays whole and nothing stray is left; then the same
// for `pipeline run --force`, after which status is truthful and a rerun
// completes.
func (k *faultKit) diskFull() {
	limits := []int{0, 3000}
	if _, err := exec.LookPath("prlimit"); err != nil {
		limits = []int{0}
	}
	dir := k.project(true)
	insts, _ := k.stageCases()
	for _, limit := range limits {
		for _, inst := range insts {
			what := fmt.Sprintf("%s alone, file size limit %d bytes", inst.ID, limit)
			cmd := limited(limit, pipeline.BinaryPath(k.bin, inst.Stage), inst.Args...)
			cmd.Dir = dir
			b, err := cmd.CombinedOutput()
			out, code := string(b), faultExit(k.t, err)
			rel := strings.TrimPrefix(inst.Args[len(inst.Args)-1], "--out=")
			switch {
			case code == 0 && limit > 0:
				// every output fits
			case code != 1 || !strings.Contains(out, "file too large") || !strings.Contains(out, rel+string(filepath.Separator)):
				k.t.Errorf("%s: exit %d, want 1 and an error naming the file in %s:\n%s", what, code, rel, out)
			}
			if err := sameOutputs(inst.OutDir, k.in(dir, inst)); err != nil {
				k.t.Errorf("%s: the previous output is not intact: %v", what, err)
			}
			if s := strays(filepath.Join(dir, "data")); len(s) > 0 {
				k.t.Errorf("%s: stray files: %v", what, s)
			}
		}
	}
	limit := limits[len(limits)-1] // room for the pipeline's stamps and logs
	cmd := limited(limit, filepath.Join(k.bin, "pipeline"), "run", "--force", "--config", filepath.Join(dir, "pipeline.toml"), "--bin", k.bin)
	b, err := cmd.CombinedOutput()
	if code := faultExit(k.t, err); code != 1 || !strings.Contains(string(b), "file too large") {
		k.t.Errorf("pipeline run --force, file size limit %d bytes: exit %d, want 1 and the stages' errors:\n%s", limit, code, b)
	}
	k.checkTruthful(dir, "after pipeline run on a full disk")
	if code, out := k.pipeline(dir, "run"); code != 0 {
		k.t.Fatalf("rerun after the full disk: exit %d\n%s", code, out)
	}
	k.checkComplete(dir, "rerun after the full disk")
}

// concurrent starts a second `pipeline run` (and a verify) while one runs
// on the same project: each refuses at once, exit 1, naming the lock file
// and the running one's pid; the first completes as a clean run. Then two
// runs started at the same moment: one runs, the other refuses (or finds
// everything done, if it came second after all).
func (k *faultKit) concurrent() {
	dir := k.project(false)
	lock := filepath.Join(dir, "data", runner.LockName)
	first := exec.Command(filepath.Join(k.bin, "pipeline"), "run", "--config", filepath.Join(dir, "pipeline.toml"), "--bin", k.bin)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		k.t.Fatal(err)
	}
	pid := strconv.Itoa(first.Process.Pid)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if b, _ := os.ReadFile(lock); strings.TrimSpace(string(b)) == pid {
			break
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("the first run did not take the lock in a minute:\n%s", firstOut.String())
		}
	}
	for _, cmd := range []string{"run", "verify"} {
		code, out := k.pipeline(dir, cmd)
		if code != 1 || !strings.Contains(out, lock) || !strings.Contains(out, "pid "+pid) {
			k.t.Errorf("pipeline %s during a run: exit %d, want 1 and a message naming %s and pid %s:\n%s", cmd, code, lock, pid, out)
		}
	}
	if err := first.Wait(); err != nil {
		k.t.Fatalf("the first run: %v\n%s", err, firstOut.String())
	}
	k.checkComplete(dir, "the first of two runs")

	dir = k.project(false)
	lock = filepath.Join(dir, "data", runner.LockName)
	var runs [2]*exec.Cmd
	var outs [2]bytes.Buffer
	for i := range runs {
		runs[i] = exec.Command(filepath.Join(k.bin, "pipeline"), "run", "--config", filepath.Join(dir, "pipeline.toml"), "--bin", k.bin)
		runs[i].Stdout, runs[i].Stderr = &outs[i], &outs[i]
	}
	for _, r := range runs {
		if err := r.Start(); err != nil {
			k.t.Fatal(err)
		}
	}
	ran := 0
	for i, r := range runs {
		switch code := faultExit(k.t, r.Wait()); {
		case code == 0:
			ran++
		case code != 1 || !strings.Contains(outs[i].String(), lock):
			k.t.Errorf("two runs at once: run %d: exit %d, want 0, or 1 naming the lock:\n%s", i, code, outs[i].String())
		}
	}
	if ran == 0 {
		k.t.Errorf("two runs at once: neither ran:\n%s\n%s", outs[0].String(), outs[1].String())
	}
	k.checkComplete(dir, "two runs at once")
}
