package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeBin is a directory holding the fakestage, fakeslurm and pipeline
// binaries, built once.
var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pipeline-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin = dir
	// The pipeline binary itself is what Slurm jobs run (see slurm_test.go).
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"./testdata/fakestage", "./testdata/fakeslurm", "../../cmd/pipeline")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build fakestage, fakeslurm and pipeline:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// project is a config file with its data directory and run log in a
// temporary directory.
type project struct {
	dir    string
	logDir string
	bin    string
}

func newProject(t *testing.T, config string) *project {
	t.Helper()
	p := &project{dir: t.TempDir(), bin: fakeBin}
	p.logDir = filepath.Join(p.dir, "runs")
	if err := os.Mkdir(p.logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	p.write(t, config)
	return p
}

// write replaces the config; LOG in it stands for the run log directory.
func (p *project) write(t *testing.T, config string) {
	t.Helper()
	config = strings.ReplaceAll(config, "LOG", p.logDir)
	if err := os.WriteFile(filepath.Join(p.dir, "pipeline.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (p *project) plan(t *testing.T) *Plan {
	t.Helper()
	cfg, err := LoadConfig(filepath.Join(p.dir, "pipeline.toml"))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// parsePlan parses a config said to be /p/p.toml and expands it, failing
// the test on an error.
func parsePlan(t *testing.T, src string) (*Config, *Plan) {
	t.Helper()
	cfg, err := ParseConfig("p.toml", "/p", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, plan
}

func (p *project) runner() *Runner { return &Runner{BinDir: p.bin, Jobs: 2} }

// run runs the pipeline and returns its report, failing the test on an
// error unless wantErr is set.
func (p *project) run(t *testing.T, r *Runner, wantErr error) *Report {
	t.Helper()
	rep, err := r.Run(context.Background(), p.plan(t))
	if wantErr == nil && err != nil {
		t.Fatalf("run: %v", err)
	}
	if wantErr != nil && !errors.Is(err, wantErr) {
		t.Fatalf("run: got error %v, want %v", err, wantErr)
	}
	return rep
}

// ran returns the instances the fake stage recorded since the last call,
// sorted, and clears the record.
func (p *project) ran(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(p.logDir)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, e := range entries {
		path := filepath.Join(p.logDir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, filepath.ToSlash(strings.TrimPrefix(string(b), "data"+string(filepath.Separator))))
		os.Remove(path)
	}
	slices.Sort(ids)
	return ids
}

// states returns the status of every instance, by ID.
func (p *project) states(t *testing.T) map[string]Status {
	t.Helper()
	sts, err := p.plan(t).Status(p.bin)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Status{}
	for _, st := range sts {
		m[st.Instance.ID] = st
	}
	return m
}

// rebuild stands for a change of a binary's code: the binary's bytes
// change, what it computes does not (unless the fake is told otherwise,
// as fakeparquet is by FAKEPARQUET).
func (p *project) rebuild(t *testing.T, name string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(p.bin, name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies an executable.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// cancelOnStart returns a context cancelled as soon as a stage has
// recorded its start in the run log.
func (p *project) cancelOnStart(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil {
			if entries, _ := os.ReadDir(p.logDir); len(entries) > 0 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return ctx
}

func (p *project) path(rel string) string { return filepath.Join(p.dir, filepath.FromSlash(rel)) }

func sorted(ids []string) []string {
	ids = append([]string{}, ids...)
	slices.Sort(ids)
	return ids
}

func assertIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("%s: got %v, want %v", what, sorted(got), sorted(want))
	}
}

// chain: a -> b -> c, a -> d, and e on its own.
const chain = `
# test pipeline
[stage.a]
run = ["fakestage", "gen"]
flags = { value = "a", log = "LOG" }
untracked = ["log"]

[stage.b]
run = ["fakestage"]
flags = { value = "b", log = "LOG" }
untracked = ["log"]
inputs = { in = "a" }

[stage.c]
run = ["fakestage"]
flags = { value = "c", log = "LOG" }
untracked = ["log"]
inputs = { in = "b" }

[stage.d]
run = ["fakestage"]
flags = { value = "d", log = "LOG" }
untracked = ["log"]
inputs = { in = "a" }

[stage.e]
run = ["fakestage"]
flags = { value = "e", log = "LOG" }
untracked = ["log"]
`

var all = []string{"a", "b", "c", "d", "e"}

func TestSecondRunRunsNothing(t *testing.T) {
	p := newProject(t, chain)
	rep := p.run(t, p.runner(), nil)
	assertIDs(t, "first run: ran", p.ran(t), all)
	assertIDs(t, "first run: report", rep.IDs(Ran), all)
	for _, id := range all {
		if _, err := ReadStamp(p.path("data/" + id)); err != nil {
			t.Errorf("%s: no stamp after a successful run: %v", id, err)
		}
	}

	rep = p.run(t, p.runner(), nil)
	assertIDs(t, "second run: ran", p.ran(t), nil)
	assertIDs(t, "second run: up to date", rep.IDs(Skipped), all)
}

func TestChangedFlagRerunsStageAndDependants(t *testing.T) {
	p := newProject(t, chain)
	p.run(t, p.runner(), nil)
	p.ran(t)

	p.write(t, strings.Replace(chain, `value = "b"`, `value = "B"`, 1))
	rep := p.run(t, p.runner(), nil)
	assertIDs(t, "ran", p.ran(t), []string{"b", "c"})
	assertIDs(t, "report ran", rep.IDs(Ran), []string{"b", "c"})
	assertIDs(t, "report up to date", rep.IDs(Skipped), []string{"a", "d", "e"})
	for _, res := range rep.Results {
		if res.Instance.ID == "b" && !strings.Contains(res.Reason, "flags changed: --value=b -> --value=B") {
			t.Errorf("b ran for %q, want the changed flag named", res.Reason)
		}
		if res.Instance.ID == "c" && !strings.Contains(res.Reason, "input changed: data/b/result.txt") {
			t.Errorf("c ran for %q, want its changed input named", res.Reason)
		}
	}
}

func TestDeletedOutputRerunsProducer(t *testing.T) {
	p := newProject(t, chain)
	p.run(t, p.runner(), nil)
	p.ran(t)

	if err := os.Remove(p.path("data/a/result.txt")); err != nil {
		t.Fatal(err)
	}
	sts, err := p.plan(t).Status(p.bin)
	if err != nil {
		t.Fatal(err)
	}
	if st := sts[0]; st.Instance.ID != "a" || st.State != Stale || !strings.Contains(st.Reason, "output deleted: data/a/result.txt") {
		t.Errorf("status of a: %s %s (%s), want stale, output deleted", st.Instance.ID, st.State, st.Reason)
	}
	// The fake stage is deterministic: a's regenerated output is
	// byte-identical, so b and d, judged after a reran, stay up to date.
	rep := p.run(t, p.runner(), nil)
	assertIDs(t, "ran", p.ran(t), []string{"a"})
	assertIDs(t, "up to date", rep.IDs(Skipped), []string{"b", "c", "d", "e"})

	// A modified (not deleted) output reruns its producer too.
	if err := os.WriteFile(p.path("data/b/result.txt"), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.run(t, p.runner(), nil)
	assertIDs(t, "ran after modifying b's output", p.ran(t), []string{"b"})
}

func TestFailureBlocksDependantsOnly(t *testing.T) {
	p := newProject(t, chain)
	failing := strings.Replace(chain, `value = "b",`, `value = "b", fail = true,`, 1)
	p.write(t, failing)
	rep := p.run(t, p.runner(), ErrFailed)
	assertIDs(t, "ran (started)", p.ran(t), []string{"a", "b", "d", "e"})
	assertIDs(t, "completed", rep.IDs(Ran), []string{"a", "d", "e"})
	assertIDs(t, "failed", rep.IDs(Failed), []string{"b"})
	assertIDs(t, "blocked", rep.IDs(Blocked), []string{"c"})

	if _, err := ReadStamp(p.path("data/b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("failed stage has a stamp (err %v)", err)
	}
	if _, err := os.Stat(p.path("data/b/result.txt")); err != nil {
		t.Errorf("the fake stage should have left a partial output: %v", err)
	}
	var ee *ExitError
	for _, res := range rep.Results {
		if res.Instance.ID == "b" && !errors.As(res.Err, &ee) {
			t.Fatalf("b: error %v, want an *ExitError", res.Err)
		}
	}
	if ee.Code != 3 {
		t.Errorf("exit code %d, want 3", ee.Code)
	}
	if len(ee.Tail) != 20 || ee.Tail[19] != "fake error line 25" || ee.Tail[0] != "fake error line 6" {
		t.Errorf("stderr tail = %q, want lines 6..25", ee.Tail)
	}
	if log, err := os.ReadFile(p.path("data/b/.logs/stderr.log")); err != nil || !strings.Contains(string(log), "fake error line 1\n") {
		t.Errorf("stderr.log holds %q (err %v), want the whole stderr", log, err)
	}
	var sum bytes.Buffer
	rep.WriteSummary(&sum)
	for _, want := range []string{"FAILED b: exit code 3", "| fake error line 25", "blocked c: upstream b failed", "b  data/b/ INCOMPLETE"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	sts, err := p.plan(t).Status(p.bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if id := st.Instance.ID; (id == "b" || id == "c") != (st.State == Missing) {
			t.Errorf("status %s: %s (%s)", id, st.State, st.Reason)
		}
	}

	// Fixed, the failed stage and what it blocked run; nothing else.
	p.write(t, chain)
	p.run(t, p.runner(), nil)
	assertIDs(t, "ran after the fix", p.ran(t), []string{"b", "c"})
}

func TestDryRunRunsNothing(t *testing.T) {
	p := newProject(t, chain)
	var out bytes.Buffer
	if err := p.runner().DryRun(p.plan(t), &out); err != nil {
		t.Fatal(err)
	}
	assertIDs(t, "dry run ran", p.ran(t), nil)
	if _, err := os.Stat(p.path("data")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dry run created the data directory (err %v)", err)
	}
	if !strings.Contains(out.String(), "5 to run") || !strings.Contains(out.String(), "fakestage gen --value=a --log=") {
		t.Errorf("dry-run plan:\n%s", out.String())
	}

	p.run(t, p.runner(), nil)
	p.ran(t)
	p.write(t, strings.Replace(chain, `value = "b"`, `value = "B"`, 1))
	out.Reset()
	if err := p.runner().DryRun(p.plan(t), &out); err != nil {
		t.Fatal(err)
	}
	assertIDs(t, "dry run ran", p.ran(t), nil)
	lines := strings.Split(out.String(), "\n")
	for _, want := range []string{
		"1 to run, 1 maybe, 3 up to date",
		"run   b  (stale: flags changed: --value=b -> --value=B)",
		"maybe c  (upstream b reruns",
		"skip  d  (up to date)",
	} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("dry-run plan lacks %q:\n%s", want, out.String())
		}
	}
}

func TestOnlyAndForce(t *testing.T) {
	p := newProject(t, chain)
	r := p.runner()
	r.Only = []string{"c"}
	p.run(t, r, nil)
	assertIDs(t, "--only c", p.ran(t), []string{"a", "b", "c"})

	r = p.runner()
	r.Only, r.Force = []string{"d"}, true
	rep := p.run(t, r, nil)
	assertIDs(t, "--only d --force", p.ran(t), []string{"d"})
	assertIDs(t, "--only d --force: considered", append(rep.IDs(Ran), rep.IDs(Skipped)...), []string{"a", "d"})

	r = p.runner()
	r.Only = []string{"nosuch"}
	if _, err := r.Run(context.Background(), p.plan(t)); !errors.Is(err, ErrUnknownStage) {
		t.Errorf("--only nosuch: error %v, want ErrUnknownStage", err)
	}
}

func TestStatus(t *testing.T) {
	p := newProject(t, chain)
	for id, st := range p.states(t) {
		if st.State != Missing {
			t.Errorf("fresh %s: %s, want missing", id, st.State)
		}
	}
	p.run(t, p.runner(), nil)
	p.ran(t)
	for id, st := range p.states(t) {
		if st.State != UpToDate {
			t.Errorf("after run %s: %s (%s), want up to date", id, st.State, st.Reason)
		}
	}
	p.write(t, strings.Replace(chain, `value = "b"`, `value = "B"`, 1))
	m := p.states(t)
	if st := m["b"]; st.State != Stale || st.Reason != "flags changed: --value=b -> --value=B" {
		t.Errorf("b: %s (%s)", st.State, st.Reason)
	}
	if st := m["c"]; st.State != Stale || st.Reason != "upstream b is stale" {
		t.Errorf("c: %s (%s)", st.State, st.Reason)
	}
	if st := m["d"]; st.State != UpToDate {
		t.Errorf("d: %s (%s)", st.State, st.Reason)
	}
	var out bytes.Buffer
	if err := WriteStatus(&out, []Status{m["a"], m["b"]}); err != nil {
		t.Fatal(err)
	}
	if want := "a  up to date\nb  stale       flags changed: --value=b -> --value=B\n"; out.String() != want {
		t.Errorf("WriteStatus:\n%q\nwant\n%q", out.String(), want)
	}

	// A rebuilt binary makes every stage stale.
	p.write(t, chain)
	p.bin = t.TempDir()
	copyFile(t, filepath.Join(fakeBin, "fakestage"), filepath.Join(p.bin, "fakestage"))
	p.rebuild(t, "fakestage")
	for id, st := range p.states(t) {
		if st.State != Stale || !strings.Contains(st.Reason, "binary changed") {
			t.Errorf("new binary, %s: %s (%s), want stale: binary changed", id, st.State, st.Reason)
		}
	}
	p.run(t, p.runner(), nil)
	assertIDs(t, "ran with a new binary", p.ran(t), all)
}

const sharded = `
[stage.models]
run = ["fakestage", "ising"]
flags = { graph = "grid", log = "LOG" }
untracked = ["log"]
[stage.models.shard]
size = [3, 5]
gamma = [0.1, 1.0]

[stage.exact]          # one instance per models shard
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
inputs = { in = "models" }

[stage.pair]           # two sharded inputs, matched on size and gamma
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
inputs = { in = "models", more = "exact" }

[stage.score]          # gathers every shard
run = ["fakestage"]
flags = { log = "LOG" }
untracked = ["log"]
inputs = { in = ["exact"] }
`

func TestShardingFansOut(t *testing.T) {
	p := newProject(t, sharded)
	shards := []string{"size=3,gamma=0.1", "size=3,gamma=1", "size=5,gamma=0.1", "size=5,gamma=1"}
	var want []string
	for _, stage := range []string{"models", "exact", "pair"} {
		for _, s := range shards {
			want = append(want, stage+"/"+s)
		}
	}
	want = append(want, "score")
	rep := p.run(t, p.runner(), nil)
	assertIDs(t, "ran", p.ran(t), want)
	assertIDs(t, "report", rep.IDs(Ran), want)
	for _, id := range want {
		if _, err := ReadStamp(p.path("data/" + id)); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}

	plan := p.plan(t)
	m := plan.Lookup("models/size=5,gamma=0.1")
	if m == nil || !slices.Equal(m.Args, []string{"ising", "--graph=grid", "--log=" + p.logDir, "--size=5", "--gamma=0.1", "--out=" + filepath.FromSlash("data/models/size=5,gamma=0.1")}) {
		t.Errorf("models shard args: %v", m.Args)
	}
	pair := plan.Lookup("pair/size=3,gamma=1")
	if pair == nil || len(pair.Deps) != 2 || pair.Deps[0].ID != "models/size=3,gamma=1" || pair.Deps[1].ID != "exact/size=3,gamma=1" {
		t.Errorf("pair shard deps mismatched: %+v", pair)
	}
	score, err := os.ReadFile(p.path("data/score/result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shards {
		if !strings.Contains(string(score), "in "+filepath.FromSlash("data/exact/"+s)+"\n") {
			t.Errorf("score did not get shard %s:\n%s", s, score)
		}
	}

	// One more gamma: only its shards and the gathering stage run.
	p.write(t, strings.Replace(sharded, "gamma = [0.1, 1.0]", "gamma = [0.1, 1.0, 2]", 1))
	p.run(t, p.runner(), nil)
	assertIDs(t, "ran after adding gamma 2", p.ran(t), []string{
		"models/size=3,gamma=2", "models/size=5,gamma=2",
		"exact/size=3,gamma=2", "exact/size=5,gamma=2",
		"pair/size=3,gamma=2", "pair/size=5,gamma=2",
		"score",
	})
}

func TestInterruptLeavesNoStamp(t *testing.T) {
	p := newProject(t, chain)
	p.run(t, p.runner(), nil)
	p.ran(t)

	p.write(t, strings.Replace(chain, `value = "b",`, `value = "b", sleep = "1m",`, 1))
	ctx := p.cancelOnStart(t) // as soon as b has started
	start := time.Now()
	rep, err := p.runner().Run(ctx, p.plan(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("interrupted run took %v: the stage was not stopped", d)
	}
	assertIDs(t, "cancelled", rep.IDs(Cancelled), []string{"b", "c"})
	if _, err := ReadStamp(p.path("data/b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("interrupted stage has a stamp (err %v)", err)
	}
	if _, err := ReadStamp(p.path("data/c")); err != nil {
		t.Errorf("c never started, its old stamp should stay: %v", err)
	}
	// The summary calls b, which lost its output, incomplete; not a, up to
	// date, nor c, whose earlier output is complete.
	var sum bytes.Buffer
	rep.WriteSummary(&sum)
	for _, want := range []string{"  a  data/a/\n", "  b  data/b/ INCOMPLETE\n", "  c  data/c/ complete from an earlier run, not rechecked\n"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

func TestUnknownBinary(t *testing.T) {
	p := newProject(t, chain+"\n[stage.f]\nrun = [\"nosuch\"]\n")
	_, err := p.runner().Run(context.Background(), p.plan(t))
	var ce *ConfigError
	line := strings.Count(chain, "\n") + 3
	if !errors.As(err, &ce) || ce.Line != line || ce.Key != "stage.f.run" || !strings.Contains(ce.Msg, `unknown binary "nosuch"`) {
		t.Fatalf("error %v, want a config error at line %d, stage.f.run", err, line)
	}
	assertIDs(t, "ran", p.ran(t), nil)
}

func TestTailWriter(t *testing.T) {
	tw := &tailWriter{max: 3}
	for _, chunk := range []string{"one\ntw", "o\nthree\n", "four\r\nfi", "ve"} {
		tw.Write([]byte(chunk))
	}
	if got, want := tw.lines(), []string{"three", "four", "five"}; !slices.Equal(got, want) {
		t.Errorf("tail = %q, want %q", got, want)
	}
}

func TestBar(t *testing.T) {
	var out bytes.Buffer
	b := NewBar(&out, 20)
	b.Set("[##--] 1/2  running: a-long-instance-name")
	fmt.Fprintf(b, "log line\n")
	b.Set("")
	want := clearLine + "[##--] 1/2  runnin…" + clearLine + "log line\n" + "[##--] 1/2  runnin…" + clearLine
	if out.String() != want {
		t.Errorf("bar wrote %q, want %q", out.String(), want)
	}
}

func TestKilledStageNamesSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signals")
	}
	p := newProject(t, strings.Replace(chain, `value = "b",`, `value = "b", kill = true,`, 1))
	rep := p.run(t, p.runner(), ErrFailed)
	var ee *ExitError
	for _, res := range rep.Results {
		if res.Instance.ID == "b" && !errors.As(res.Err, &ee) {
			t.Fatalf("b: error %v, want an *ExitError", res.Err)
		}
	}
	if ee == nil || ee.Signal != 9 || !strings.Contains(ee.Error(), "killed by signal 9 (killed)") {
		t.Fatalf("b: %v (signal %d), want killed by signal 9 (killed)", ee, ee.Signal)
	}
	var sum bytes.Buffer
	rep.WriteSummary(&sum)
	if want := "FAILED b: killed by signal 9 (killed); logs in data/b/.logs"; !strings.Contains(sum.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, sum.String())
	}
}

func TestRerunRemovesTemporaryStamps(t *testing.T) {
	p := newProject(t, chain)
	p.run(t, p.runner(), nil)
	p.ran(t)
	stray := p.path("data/b/" + StampName + ".tmp123") // a run killed while stamping
	if err := os.WriteFile(stray, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.write(t, strings.Replace(chain, `value = "b"`, `value = "B"`, 1))
	p.run(t, p.runner(), nil)
	if _, err := os.Stat(stray); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary stamp of a killed run left after b reran (err %v)", err)
	}
}
