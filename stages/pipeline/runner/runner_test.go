package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
	"github.com/renn-go/renn/stages/pipeline/internal/pipetest"
	"github.com/renn-go/renn/stages/pipeline/proc"
)

// fakeBin is a directory holding the fakestage and pipeline binaries,
// built once.
var fakeBin string

func TestMain(m *testing.M) {
	pipetest.Main(m, []string{pipetest.FakeStage, pipetest.Pipeline}, func(bin string) int {
		fakeBin = bin
		return m.Run()
	})
}

// project is a pipetest.Project running the fake binaries.
type project struct{ *pipetest.Project }

func newProject(t *testing.T, config string) *project {
	t.Helper()
	return &project{pipetest.NewProject(t, fakeBin, config)}
}

func (p *project) runner() *Runner { return &Runner{BinDir: p.Bin, Jobs: 2} }

// run runs the pipeline and returns its report, failing the test on an
// error unless wantErr is set.
func (p *project) run(t *testing.T, r *Runner, wantErr error) *Report {
	t.Helper()
	rep, err := r.Run(context.Background(), p.Plan(t))
	if wantErr == nil && err != nil {
		t.Fatalf("run: %v", err)
	}
	if wantErr != nil && !errors.Is(err, wantErr) {
		t.Fatalf("run: got error %v, want %v", err, wantErr)
	}
	return rep
}

func TestSecondRunRunsNothing(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	rep := p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "first run: ran", p.Ran(t), pipetest.ChainIDs())
	pipetest.AssertIDs(t, "first run: report", rep.IDs(Ran), pipetest.ChainIDs())
	for _, id := range pipetest.ChainIDs() {
		if _, err := pipeline.ReadStamp(p.Path("data/" + id)); err != nil {
			t.Errorf("%s: no stamp after a successful run: %v", id, err)
		}
	}

	rep = p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "second run: ran", p.Ran(t), nil)
	pipetest.AssertIDs(t, "second run: up to date", rep.IDs(Skipped), pipetest.ChainIDs())
}

func TestChangedFlagRerunsStageAndDependants(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	p.run(t, p.runner(), nil)
	p.Ran(t)

	p.Write(t, strings.Replace(pipetest.Chain, `value = "b"`, `value = "B"`, 1))
	rep := p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "ran", p.Ran(t), []string{"b", "c"})
	pipetest.AssertIDs(t, "report ran", rep.IDs(Ran), []string{"b", "c"})
	pipetest.AssertIDs(t, "report up to date", rep.IDs(Skipped), []string{"a", "d", "e"})
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
	p := newProject(t, pipetest.Chain)
	p.run(t, p.runner(), nil)
	p.Ran(t)

	if err := os.Remove(p.Path("data/a/result.txt")); err != nil {
		t.Fatal(err)
	}
	sts, err := p.Plan(t).Status(p.Bin)
	if err != nil {
		t.Fatal(err)
	}
	if st := sts[0]; st.Instance.ID != "a" || st.State != pipeline.Stale || !strings.Contains(st.Reason, "output deleted: data/a/result.txt") {
		t.Errorf("status of a: %s %s (%s), want stale, output deleted", st.Instance.ID, st.State, st.Reason)
	}
	// The fake stage is deterministic: a's regenerated output is
	// byte-identical, so b and d, judged after a reran, stay up to date.
	rep := p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "ran", p.Ran(t), []string{"a"})
	pipetest.AssertIDs(t, "up to date", rep.IDs(Skipped), []string{"b", "c", "d", "e"})

	// A modified (not deleted) output reruns its producer too.
	if err := os.WriteFile(p.Path("data/b/result.txt"), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "ran after modifying b's output", p.Ran(t), []string{"b"})
}

func TestFailureBlocksDependantsOnly(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	failing := strings.Replace(pipetest.Chain, `value = "b",`, `value = "b", fail = true,`, 1)
	p.Write(t, failing)
	rep := p.run(t, p.runner(), ErrFailed)
	pipetest.AssertIDs(t, "ran (started)", p.Ran(t), []string{"a", "b", "d", "e"})
	pipetest.AssertIDs(t, "completed", rep.IDs(Ran), []string{"a", "d", "e"})
	pipetest.AssertIDs(t, "failed", rep.IDs(Failed), []string{"b"})
	pipetest.AssertIDs(t, "blocked", rep.IDs(Blocked), []string{"c"})

	if _, err := pipeline.ReadStamp(p.Path("data/b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("failed stage has a stamp (err %v)", err)
	}
	if _, err := os.Stat(p.Path("data/b/result.txt")); err != nil {
		t.Errorf("the fake stage should have left a partial output: %v", err)
	}
	var ee *proc.ExitError
	for _, res := range rep.Results {
		if res.Instance.ID == "b" && !errors.As(res.Err, &ee) {
			t.Fatalf("b: error %v, want a *proc.ExitError", res.Err)
		}
	}
	if ee.Code != 3 {
		t.Errorf("exit code %d, want 3", ee.Code)
	}
	if len(ee.Tail) != 20 || ee.Tail[19] != "fake error line 25" || ee.Tail[0] != "fake error line 6" {
		t.Errorf("stderr tail = %q, want lines 6..25", ee.Tail)
	}
	if log, err := os.ReadFile(p.Path("data/b/.logs/stderr.log")); err != nil || !strings.Contains(string(log), "fake error line 1\n") {
		t.Errorf("stderr.log holds %q (err %v), want the whole stderr", log, err)
	}
	var sum bytes.Buffer
	rep.WriteSummary(&sum)
	for _, want := range []string{"FAILED b: exit code 3", "| fake error line 25", "blocked c: upstream b failed", "b  data/b/ INCOMPLETE"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	sts, err := p.Plan(t).Status(p.Bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if id := st.Instance.ID; (id == "b" || id == "c") != (st.State == pipeline.Missing) {
			t.Errorf("status %s: %s (%s)", id, st.State, st.Reason)
		}
	}

	// Fixed, the failed stage and what it blocked run; nothing else.
	p.Write(t, pipetest.Chain)
	p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "ran after the fix", p.Ran(t), []string{"b", "c"})
}

func TestDryRunRunsNothing(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	var out bytes.Buffer
	if err := p.runner().DryRun(p.Plan(t), &out); err != nil {
		t.Fatal(err)
	}
	pipetest.AssertIDs(t, "dry run ran", p.Ran(t), nil)
	if _, err := os.Stat(p.Path("data")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dry run created the data directory (err %v)", err)
	}
	if !strings.Contains(out.String(), "5 to run") || !strings.Contains(out.String(), "fakestage gen --value=a --log=") {
		t.Errorf("dry-run plan:\n%s", out.String())
	}

	p.run(t, p.runner(), nil)
	p.Ran(t)
	p.Write(t, strings.Replace(pipetest.Chain, `value = "b"`, `value = "B"`, 1))
	out.Reset()
	if err := p.runner().DryRun(p.Plan(t), &out); err != nil {
		t.Fatal(err)
	}
	pipetest.AssertIDs(t, "dry run ran", p.Ran(t), nil)
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
	p := newProject(t, pipetest.Chain)
	r := p.runner()
	r.Only = []string{"c"}
	p.run(t, r, nil)
	pipetest.AssertIDs(t, "--only c", p.Ran(t), []string{"a", "b", "c"})

	r = p.runner()
	r.Only, r.Force = []string{"d"}, true
	rep := p.run(t, r, nil)
	pipetest.AssertIDs(t, "--only d --force", p.Ran(t), []string{"d"})
	pipetest.AssertIDs(t, "--only d --force: considered", append(rep.IDs(Ran), rep.IDs(Skipped)...), []string{"a", "d"})

	r = p.runner()
	r.Only = []string{"nosuch"}
	if _, err := r.Run(context.Background(), p.Plan(t)); !errors.Is(err, pipeline.ErrUnknownStage) {
		t.Errorf("--only nosuch: error %v, want pipeline.ErrUnknownStage", err)
	}
}

func TestStatus(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	for id, st := range p.States(t) {
		if st.State != pipeline.Missing {
			t.Errorf("fresh %s: %s, want missing", id, st.State)
		}
	}
	p.run(t, p.runner(), nil)
	p.Ran(t)
	for id, st := range p.States(t) {
		if st.State != pipeline.UpToDate {
			t.Errorf("after run %s: %s (%s), want up to date", id, st.State, st.Reason)
		}
	}
	p.Write(t, strings.Replace(pipetest.Chain, `value = "b"`, `value = "B"`, 1))
	m := p.States(t)
	if st := m["b"]; st.State != pipeline.Stale || st.Reason != "flags changed: --value=b -> --value=B" {
		t.Errorf("b: %s (%s)", st.State, st.Reason)
	}
	if st := m["c"]; st.State != pipeline.Stale || st.Reason != "upstream b is stale" {
		t.Errorf("c: %s (%s)", st.State, st.Reason)
	}
	if st := m["d"]; st.State != pipeline.UpToDate {
		t.Errorf("d: %s (%s)", st.State, st.Reason)
	}
	var out bytes.Buffer
	if err := pipeline.WriteStatus(&out, []pipeline.Status{m["a"], m["b"]}); err != nil {
		t.Fatal(err)
	}
	if want := "a  up to date\nb  stale       flags changed: --value=b -> --value=B\n"; out.String() != want {
		t.Errorf("WriteStatus:\n%q\nwant\n%q", out.String(), want)
	}

	// A rebuilt binary makes every stage stale.
	p.Write(t, pipetest.Chain)
	p.Bin = t.TempDir()
	pipetest.CopyFile(t, filepath.Join(fakeBin, "fakestage"), filepath.Join(p.Bin, "fakestage"))
	p.Rebuild(t, "fakestage")
	for id, st := range p.States(t) {
		if st.State != pipeline.Stale || !strings.Contains(st.Reason, "binary changed") {
			t.Errorf("new binary, %s: %s (%s), want stale: binary changed", id, st.State, st.Reason)
		}
	}
	p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "ran with a new binary", p.Ran(t), pipetest.ChainIDs())
}

func TestShardingFansOut(t *testing.T) {
	p := newProject(t, pipetest.Sharded)
	shards := []string{"size=3,gamma=0.1", "size=3,gamma=1", "size=5,gamma=0.1", "size=5,gamma=1"}
	var want []string
	for _, stage := range []string{"models", "exact", "pair"} {
		for _, s := range shards {
			want = append(want, stage+"/"+s)
		}
	}
	want = append(want, "score")
	rep := p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "ran", p.Ran(t), want)
	pipetest.AssertIDs(t, "report", rep.IDs(Ran), want)
	for _, id := range want {
		if _, err := pipeline.ReadStamp(p.Path("data/" + id)); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}

	plan := p.Plan(t)
	m := plan.Lookup("models/size=5,gamma=0.1")
	if m == nil || !slices.Equal(m.Args, []string{"ising", "--graph=grid", "--log=" + p.LogDir, "--size=5", "--gamma=0.1", "--out=" + filepath.FromSlash("data/models/size=5,gamma=0.1")}) {
		t.Errorf("models shard args: %v", m.Args)
	}
	pair := plan.Lookup("pair/size=3,gamma=1")
	if pair == nil || len(pair.Deps) != 2 || pair.Deps[0].ID != "models/size=3,gamma=1" || pair.Deps[1].ID != "exact/size=3,gamma=1" {
		t.Errorf("pair shard deps mismatched: %+v", pair)
	}
	score, err := os.ReadFile(p.Path("data/score/result.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shards {
		if !strings.Contains(string(score), "in "+filepath.FromSlash("data/exact/"+s)+"\n") {
			t.Errorf("score did not get shard %s:\n%s", s, score)
		}
	}

	// One more gamma: only its shards and the gathering stage run.
	p.Write(t, strings.Replace(pipetest.Sharded, "gamma = [0.1, 1.0]", "gamma = [0.1, 1.0, 2]", 1))
	p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "ran after adding gamma 2", p.Ran(t), []string{
		"models/size=3,gamma=2", "models/size=5,gamma=2",
		"exact/size=3,gamma=2", "exact/size=5,gamma=2",
		"pair/size=3,gamma=2", "pair/size=5,gamma=2",
		"score",
	})
}

func TestInterruptLeavesNoStamp(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	p.run(t, p.runner(), nil)
	p.Ran(t)

	p.Write(t, strings.Replace(pipetest.Chain, `value = "b",`, `value = "b", sleep = "1m",`, 1))
	ctx := p.CancelOnStart(t) // as soon as b has started
	start := time.Now()
	rep, err := p.runner().Run(ctx, p.Plan(t))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("interrupted run took %v: the stage was not stopped", d)
	}
	pipetest.AssertIDs(t, "cancelled", rep.IDs(Cancelled), []string{"b", "c"})
	if _, err := pipeline.ReadStamp(p.Path("data/b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("interrupted stage has a stamp (err %v)", err)
	}
	if _, err := pipeline.ReadStamp(p.Path("data/c")); err != nil {
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
	p := newProject(t, pipetest.Chain+"\n[stage.f]\nrun = [\"nosuch\"]\n")
	_, err := p.runner().Run(context.Background(), p.Plan(t))
	var ce *config.Error
	line := strings.Count(pipetest.Chain, "\n") + 3
	if !errors.As(err, &ce) || ce.Line != line || ce.Key != "stage.f.run" || !strings.Contains(ce.Msg, `unknown binary "nosuch"`) {
		t.Fatalf("error %v, want a config error at line %d, stage.f.run", err, line)
	}
	pipetest.AssertIDs(t, "ran", p.Ran(t), nil)
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
	p := newProject(t, strings.Replace(pipetest.Chain, `value = "b",`, `value = "b", kill = true,`, 1))
	rep := p.run(t, p.runner(), ErrFailed)
	var ee *proc.ExitError
	for _, res := range rep.Results {
		if res.Instance.ID == "b" && !errors.As(res.Err, &ee) {
			t.Fatalf("b: error %v, want a *proc.ExitError", res.Err)
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
	p := newProject(t, pipetest.Chain)
	p.run(t, p.runner(), nil)
	p.Ran(t)
	stray := p.Path("data/b/" + pipeline.StampName + ".tmp123") // a run killed while stamping
	if err := os.WriteFile(stray, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Write(t, strings.Replace(pipetest.Chain, `value = "b"`, `value = "B"`, 1))
	p.run(t, p.runner(), nil)
	if _, err := os.Stat(stray); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary stamp of a killed run left after b reran (err %v)", err)
	}
}
