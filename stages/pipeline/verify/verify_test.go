package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/internal/pipetest"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// fakeBin is a directory holding fakestage and, built as Build builds
// (with -trimpath: verify adopts only for such binaries), fakeparquet and
// the compare-outputs binary verify runs. It also holds a copy of a
// project that ran estimates (ranAndRebuilt).
var fakeBin string

func TestMain(m *testing.M) {
	pipetest.Main(m, []string{pipetest.FakeStage}, func(bin string) int {
		fakeBin = bin
		if err := pipetest.Build(trimmed(), []string{"-trimpath", "-buildvcs=false"}, pipetest.FakeParquet, "./cmd/"+CompareTool); err != nil {
			fmt.Fprintf(os.Stderr, "build fakeparquet and %s with -trimpath: %v\n", CompareTool, err)
			return 1
		}
		return m.Run()
	})
}

// trimmed is the directory of the binaries built with -trimpath.
func trimmed() string { return filepath.Join(fakeBin, "trimpath") }

// project is a pipetest.Project running the fake binaries.
type project struct{ *pipetest.Project }

func newProject(t *testing.T, config string) *project {
	t.Helper()
	return &project{pipetest.NewProject(t, fakeBin, config)}
}

func (p *project) runner() *runner.Runner { return &runner.Runner{BinDir: p.Bin, Jobs: 2} }

// run runs the pipeline, failing the test on an error.
func (p *project) run(t *testing.T) {
	t.Helper()
	if _, err := p.runner().Run(context.Background(), p.Plan(t)); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// verifyProject is a project whose binary is a copy of the trimmed
// fakeparquet, so that a test can change it.
func verifyProject(t *testing.T, config string) *project {
	t.Helper()
	p := newProject(t, config)
	p.Bin = filepath.Join(p.Dir, "bin")
	for _, name := range []string{"fakeparquet", CompareTool} {
		pipetest.CopyFile(t, filepath.Join(trimmed(), name), filepath.Join(p.Bin, name))
	}
	return p
}

// setSeconds rewrites the recorded run times, so that the samples are
// known in advance.
func (p *project) setSeconds(t *testing.T, secs map[string]float64) {
	t.Helper()
	for id, s := range secs {
		dir := p.Path("data/" + id)
		st, err := pipeline.ReadStamp(dir)
		if err != nil {
			t.Fatal(err)
		}
		st.Seconds = s
		if err := pipeline.WriteStamp(dir, st); err != nil {
			t.Fatal(err)
		}
	}
}

// assertNoVerifyDir fails unless verify left no temporary files.
func (p *project) assertNoVerifyDir(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(p.Path("data/.verify")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("data/.verify is left behind (stat: %v)", err)
	}
}

// estimates: models (2 shards) -> est (3 methods per model shard) -> score
// (gathers every est shard), all one binary. The run log is given relative
// to the project, so that the arguments hold in a copy of it.
const estimates = `
[stage.models]
run = ["fakeparquet", "gen"]
flags = { log = "runs" }
untracked = ["log"]
shard = { size = [3, 5] }

[stage.est]
run = ["fakeparquet"]
flags = { log = "runs" }
untracked = ["log"]
inputs = { in = "models" }
shard = { method = ["bp", "mf", "renn"] }

[stage.score]
run = ["fakeparquet"]
flags = { log = "runs" }
untracked = ["log"]
inputs = { in = ["est"] }
`

// estSeconds are the recorded run times: the cheapest est instance is
// size=5,method=bp, the cheapest models instance size=3.
var estSeconds = map[string]float64{
	"models/size=3": 1, "models/size=5": 2,
	"est/size=3,method=bp": 5, "est/size=3,method=mf": 2, "est/size=3,method=renn": 30,
	"est/size=5,method=bp": 1, "est/size=5,method=mf": 3, "est/size=5,method=renn": 20,
	"score": 4,
}

var (
	estOnce sync.Once
	estRan  string // a project that ran estimates, with estSeconds
)

// ranAndRebuilt returns a copy of a project that ran the estimates
// pipeline, with the recorded times estSeconds, and changes its binary.
func ranAndRebuilt(t *testing.T) *project {
	t.Helper()
	estOnce.Do(func() {
		p := verifyProject(t, estimates)
		p.run(t)
		p.Ran(t)
		p.setSeconds(t, estSeconds)
		dir := filepath.Join(fakeBin, "estimates")
		if err := os.CopyFS(dir, os.DirFS(p.Dir)); err != nil {
			t.Fatal(err)
		}
		estRan = dir
	})
	if estRan == "" {
		t.Fatal("no estimates project to copy")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(estRan)); err != nil {
		t.Fatal(err)
	}
	p := &project{&pipetest.Project{Dir: dir, LogDir: filepath.Join(dir, "runs"), Bin: filepath.Join(dir, "bin")}}
	p.Rebuild(t, "fakeparquet")
	return p
}

// cheapest are the samples of the estimates project: the cheapest
// instance of each stage.
const cheapest = "models/size=3 est/size=5,method=bp score"

// verifyCase is a verification of a copy of the estimates project after
// its binary changed as FAKEPARQUET says.
type verifyCase struct {
	name    string
	env     string // FAKEPARQUET: how the new binary's results differ
	match   string // FAKEPARQUET_MATCH
	v       Options
	sampled string            // instance IDs, space-separated
	adopted []string          // stages
	changed map[string]string // stage -> its first difference
	failed  []string          // stages
	wantErr error
}

var verifyCases = []verifyCase{
	{name: "unchanged", sampled: cheapest, adopted: []string{"models", "est", "score"}},
	{name: "only seconds, params and metadata differ", env: "reshape", sampled: cheapest,
		adopted: []string{"models", "est", "score"}},
	{name: "a value changes", env: "value", sampled: cheapest, wantErr: ErrChanged,
		changed: map[string]string{
			"models": "models/size=3: table.parquet: column value, row 2: cached 2.",
			"est":    "est/size=5,method=bp: table.parquet: column value, row 2: cached 2.",
			"score":  "score: table.parquet: column value, row 2",
		}},
	{name: "a list element changes", env: "probs", sampled: cheapest, wantErr: ErrChanged,
		changed: map[string]string{
			"models": "table.parquet: column probs, row 1, element 0: cached 0.75, new 0.74999999",
			"est":    "column probs, row 1, element 0",
			"score":  "column probs, row 1, element 0",
		}},
	{name: "a list element changes within the tolerance", env: "probs", v: Options{Tol: 1e-6}, sampled: cheapest,
		adopted: []string{"models", "est", "score"}},
	{name: "another file changes", env: "notes", sampled: cheapest, wantErr: ErrChanged,
		changed: map[string]string{"models": "notes.txt: bytes differ from offset 29 (line 2", "est": "notes.txt", "score": "notes.txt"}},
	{name: "a new file", env: "extra", sampled: cheapest, wantErr: ErrChanged,
		changed: map[string]string{"models": "extra.txt: only in the new outputs", "est": "extra.txt", "score": "extra.txt"}},
	{name: "one method changes, not sampled", env: "value", match: "method=renn",
		sampled: cheapest, adopted: []string{"models", "est", "score"}},
	{name: "one method changes, covered", env: "value", match: "method=renn", v: Options{Cover: []string{"method"}},
		sampled: cheapest + " est/size=3,method=mf est/size=5,method=renn", wantErr: ErrChanged,
		adopted: []string{"models", "score"},
		changed: map[string]string{"est": "est/size=5,method=renn: table.parquet: column value, row 2"}},
	{name: "a sample fails", env: "fail", match: "size=5", v: Options{Sample: 2},
		sampled: "models/size=3 models/size=5 est/size=5,method=bp est/size=3,method=mf score",
		adopted: []string{"est", "score"}, failed: []string{"models"}, wantErr: runner.ErrFailed},
}

func TestVerify(t *testing.T) {
	for _, tt := range verifyCases {
		t.Run(tt.name, func(t *testing.T) {
			p := ranAndRebuilt(t)
			before := p.stamps(t)
			t.Setenv("FAKEPARQUET", tt.env)
			t.Setenv("FAKEPARQUET_MATCH", tt.match)
			r := p.runner()
			vp, err := NewPlan(r, p.Plan(t), tt.v)
			if err != nil {
				t.Fatal(err)
			}
			err = Run(context.Background(), r, vp)
			if tt.wantErr == nil && err != nil || !errors.Is(err, tt.wantErr) {
				t.Errorf("Verify: error %v, want %v", err, tt.wantErr)
			}
			pipetest.AssertIDs(t, "sampled", sampledIDs(vp), strings.Fields(tt.sampled))
			var ran []string
			for _, id := range strings.Fields(tt.sampled) {
				ran = append(ran, ".verify/"+id)
			}
			pipetest.AssertIDs(t, "ran", p.Ran(t), ran)
			checkVerdicts(t, vp, tt)
			p.assertStates(t, before, tt.adopted)
			p.assertNoVerifyDir(t)
		})
	}
}

// sampledIDs lists the instances vp samples.
func sampledIDs(vp *Plan) []string {
	var ids []string
	for _, sc := range vp.Stages {
		for _, s := range sc.Samples {
			ids = append(ids, s.Instance.ID)
		}
	}
	return ids
}

// checkVerdicts checks what became of each stage of vp, and what its
// summary says of it, against tt.
func checkVerdicts(t *testing.T, vp *Plan, tt verifyCase) {
	t.Helper()
	var sum bytes.Buffer
	vp.WriteSummary(&sum)
	for _, sc := range vp.Stages {
		name := sc.Stage.Name
		want, isChanged := tt.changed[name]
		switch {
		case isChanged:
			if d := sc.Changed(); d == nil || !strings.Contains(d.Instance.ID+": "+d.Diff.String(), want) {
				t.Errorf("%s: changed %v, want %q", name, d, want)
			}
			if !strings.Contains(sum.String(), "changed: ") {
				t.Errorf("summary does not say %s changed:\n%s", name, sum.String())
			}
		case slices.Contains(tt.failed, name):
			if sc.Failed() == nil || !strings.Contains(sum.String(), "| fake error line 25") {
				t.Errorf("%s: no failed sample, or its stderr is not in the summary:\n%s", name, sum.String())
			}
		case !slices.Contains(tt.adopted, name):
			t.Errorf("%s: unexpected verdict %s", name, sc.verdict())
		}
	}
}

// TestVerifySkipsChangedStage runs one sample at a time: once a sample of
// a stage has changed, the stage's other samples are skipped, and those of
// the next stages still run.
func TestVerifySkipsChangedStage(t *testing.T) {
	p := ranAndRebuilt(t)
	t.Setenv("FAKEPARQUET", "value")
	r := p.runner()
	r.Jobs = 1
	vp, err := NewPlan(r, p.Plan(t), Options{Sample: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), r, vp); !errors.Is(err, ErrChanged) {
		t.Fatalf("Verify: error %v, want ErrChanged", err)
	}
	pipetest.AssertIDs(t, "ran", p.Ran(t), []string{".verify/models/size=3", ".verify/est/size=5,method=bp", ".verify/score"})
	var got []string
	for _, sc := range vp.Stages {
		for _, s := range sc.Samples {
			line := s.Instance.ID + ": " + s.Result.Outcome.String()
			if s.Result.Outcome == runner.Skipped {
				line += " (" + s.Result.Reason + ")"
			}
			got = append(got, line)
			if s.Result.Instance != s.Instance {
				t.Errorf("%s: result of instance %p, want the sample's own %p", s.Instance.ID, s.Result.Instance, s.Instance)
			}
		}
	}
	pipetest.AssertLines(t, "samples", got, []string{
		"models/size=3: ran", "models/size=5: up to date (its stage already changed or failed)",
		"est/size=5,method=bp: ran", "est/size=3,method=mf: up to date (its stage already changed or failed)",
		"score: ran",
	})
	p.assertNoVerifyDir(t)
}

func (p *project) stamps(t *testing.T) map[string]*pipeline.Stamp {
	t.Helper()
	m := map[string]*pipeline.Stamp{}
	for _, inst := range p.Plan(t).Instances {
		st, err := pipeline.ReadStamp(inst.OutDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		m[inst.ID] = st
	}
	return m
}

// assertStates checks the status after verify: the instances of the
// adopted stages are up to date (unless an upstream stage was not
// adopted), their stamps keep the times of the run that made the outputs
// and record the adoption; the other stages are still stale, their stamps
// untouched.
func (p *project) assertStates(t *testing.T, before map[string]*pipeline.Stamp, adopted []string) {
	t.Helper()
	states := p.States(t)
	current := map[*pipeline.Instance]bool{} // its stamp and those of all its upstream instances hold
	for _, inst := range p.Plan(t).Instances {
		id, st := inst.ID, states[inst.ID]
		stamp, err := pipeline.ReadStamp(inst.OutDir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(adopted, inst.Stage.Name) {
			if st.State != pipeline.Stale || stamp.BinarySHA256 != before[id].BinarySHA256 {
				t.Errorf("%s: %s after verify, want stale and its stamp untouched", id, st.State)
			}
			continue
		}
		current[inst] = !slices.ContainsFunc(inst.Deps, func(d *pipeline.Instance) bool { return !current[d] })
		switch {
		case !current[inst] && (st.State != pipeline.Stale || !strings.HasPrefix(st.Reason, "upstream ")):
			t.Errorf("%s: %s (%s), want stale because of its upstream", id, st.State, st.Reason)
		case current[inst] && st.State != pipeline.UpToDate:
			t.Errorf("%s: %s (%s) after verify, want up to date", id, st.State, st.Reason)
		}
		old := before[id]
		if !stamp.Started.Equal(old.Started) || !stamp.Finished.Equal(old.Finished) || stamp.Seconds != old.Seconds {
			t.Errorf("%s: adopted stamp ran %v-%v, %gs; want the run's %v-%v, %gs", id,
				stamp.Started, stamp.Finished, stamp.Seconds, old.Started, old.Finished, old.Seconds)
		}
		if len(stamp.Adopted) != 1 || len(stamp.Adopted[0].Sampled) == 0 || stamp.Adopted[0].PreviousBinary != old.BinarySHA256 {
			t.Errorf("%s: adoption recorded as %+v", id, stamp.Adopted)
		}
	}
}

// ineligibleCase makes some instances of a copy of the estimates project
// ineligible for another reason than their binary.
type ineligibleCase struct {
	name    string
	prepare func(t *testing.T, p *project)
	want    map[string]string // ineligible instance -> its reason
	adopted []string
}

var ineligibleCases = []ineligibleCase{
	{
		name: "flags changed",
		prepare: func(t *testing.T, p *project) {
			p.Write(t, strings.Replace(estimates, "flags = { log = \"runs\" }\nuntracked = [\"log\"]\ninputs = { in = \"models\" }",
				"flags = { log = \"runs\", steps = 2 }\nuntracked = [\"log\"]\ninputs = { in = \"models\" }", 1))
		},
		want: map[string]string{
			"est/size=3,method=bp":   "binary changed; flags changed: added --steps=2",
			"est/size=3,method=mf":   "flags changed",
			"est/size=3,method=renn": "flags changed",
			"est/size=5,method=bp":   "flags changed",
			"est/size=5,method=mf":   "flags changed",
			"est/size=5,method=renn": "flags changed",
		},
		// score is judged on its own inputs, which are as they were.
		adopted: []string{"models", "score"},
	},
	{
		name: "no stamp",
		prepare: func(t *testing.T, p *project) {
			if err := os.Remove(p.Path("data/models/size=5/" + pipeline.StampName)); err != nil {
				t.Fatal(err)
			}
		},
		want:    map[string]string{"models/size=5": "no stamp"},
		adopted: []string{"models", "est", "score"},
	},
	{
		name: "output modified",
		prepare: func(t *testing.T, p *project) {
			if err := os.WriteFile(p.Path("data/est/size=3,method=mf/notes.txt"), []byte("edited"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		want: map[string]string{
			"est/size=3,method=mf": "output modified: data/est/size=3,method=mf/notes.txt",
			"score":                "input changed: data/est/size=3,method=mf/notes.txt",
		},
		adopted: []string{"models", "est"},
	},
	{
		name: "binary not built by the pipeline",
		prepare: func(t *testing.T, p *project) {
			// Any binary built by a plain go build does.
			pipetest.CopyFile(t, filepath.Join(fakeBin, "fakestage"), filepath.Join(p.Bin, "fakeparquet"))
		},
		want: map[string]string{
			"models/size=3": "binary changed: " + filepath.Join("bin", "fakeparquet") + " was not built by the pipeline (no -trimpath",
			"score":         "was not built by the pipeline",
		},
	},
}

func TestVerifyIneligible(t *testing.T) {
	for _, tt := range ineligibleCases {
		t.Run(tt.name, func(t *testing.T) {
			p := ranAndRebuilt(t)
			tt.prepare(t, p)
			r := p.runner()
			vp, err := NewPlan(r, p.Plan(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, st := range vp.Ineligible {
				got[st.Instance.ID] = st.Reason
			}
			for id, reason := range tt.want {
				if !strings.Contains(got[id], reason) {
					t.Errorf("%s: ineligible for %q, want %q", id, got[id], reason)
				}
			}
			if err := Run(context.Background(), r, vp); err != nil {
				t.Fatal(err)
			}
			checkAfterIneligible(t, p, vp, tt)
		})
	}
}

// checkAfterIneligible checks, after Run, that the summary says what
// reruns the ineligible instances, which stages were adopted, and that no
// ineligible instance is up to date.
func checkAfterIneligible(t *testing.T, p *project, vp *Plan, tt ineligibleCase) {
	t.Helper()
	var sum bytes.Buffer
	vp.WriteSummary(&sum)
	if !strings.Contains(sum.String(), "pipeline run reruns them") {
		t.Errorf("summary does not say what reruns the ineligible instances:\n%s", sum.String())
	}
	var stages []string
	for _, sc := range vp.Stages {
		if sc.Adopted > 0 {
			stages = append(stages, sc.Stage.Name)
		}
	}
	pipetest.AssertIDs(t, "adopted stages", stages, tt.adopted)
	for id, st := range p.States(t) {
		if _, ok := tt.want[id]; ok && st.State == pipeline.UpToDate {
			t.Errorf("%s: ineligible, yet up to date after verify", id)
		}
	}
}

// An instance that writes outside its output directory (--uai-out) is not
// verified: a sample would write there too, and only --out is compared.
// pipeline run reruns it.
func TestVerifyIneligibleOtherOutput(t *testing.T) {
	p := verifyProject(t, `
[stage.a]
run = ["fakeparquet"]
flags = { log = "runs", uai-out = "uai" }
untracked = ["log"]

[stage.b]
run = ["fakeparquet"]
flags = { log = "runs" }
untracked = ["log"]
`)
	p.run(t)
	p.Ran(t)
	p.Rebuild(t, "fakeparquet")
	r := p.runner()
	vp, err := NewPlan(r, p.Plan(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vp.Ineligible) != 1 || vp.Ineligible[0].Instance.ID != "a" || !strings.Contains(vp.Ineligible[0].Reason, "binary changed") ||
		!strings.Contains(vp.Ineligible[0].Reason, "writes --uai-out, which verify does not compare") {
		t.Fatalf("ineligible %+v, want a for its --uai-out", vp.Ineligible)
	}
	if err := Run(context.Background(), r, vp); err != nil {
		t.Fatal(err)
	}
	if got := p.Ran(t); !slices.Equal(got, []string{".verify/b"}) {
		t.Errorf("verify ran %q, want b's sample only", got)
	}
	if st := p.States(t); st["a"].State != pipeline.Stale || st["b"].State != pipeline.UpToDate {
		t.Errorf("after verify: a %s, b %s; want stale and up to date", st["a"].State, st["b"].State)
	}
}

func TestVerifySamples(t *testing.T) {
	p := ranAndRebuilt(t)
	tests := []struct {
		name string
		v    Options
		want map[string]string // stage -> sampled instances (why), cheapest first
	}{
		{"cheapest", Options{}, map[string]string{
			"models": "models/size=3 (cheapest)",
			"est":    "est/size=5,method=bp (cheapest)",
			"score":  "score (cheapest)",
		}},
		{"two cheapest", Options{Sample: 2}, map[string]string{
			"models": "models/size=3 (cheapest) models/size=5 (cheapest)",
			"est":    "est/size=5,method=bp (cheapest) est/size=3,method=mf (cheapest)",
			"score":  "score (cheapest)",
		}},
		{"one per method", Options{Cover: []string{"method"}}, map[string]string{
			"models": "models/size=3 (cheapest)",
			"est":    "est/size=5,method=bp (cheapest, method=bp) est/size=3,method=mf (method=mf) est/size=5,method=renn (method=renn)",
			"score":  "score (cheapest)",
		}},
		{"one per method and size", Options{Cover: []string{"method", "size"}}, map[string]string{
			"models": "models/size=3 (cheapest, size=3) models/size=5 (size=5)",
			"est":    "est/size=5,method=bp (cheapest, method=bp, size=5) est/size=3,method=mf (method=mf, size=3) est/size=5,method=renn (method=renn)",
			"score":  "score (cheapest)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vp, err := NewPlan(p.runner(), p.Plan(t), tt.v)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, sc := range vp.Stages {
				var parts []string
				for _, s := range sc.Samples {
					parts = append(parts, s.Instance.ID+" ("+s.Why+")")
				}
				got[sc.Stage.Name] = strings.Join(parts, " ")
			}
			for stage, want := range tt.want {
				if got[stage] != want {
					t.Errorf("%s: sampled %s, want %s", stage, got[stage], want)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("stages with samples: %v", got)
			}
		})
	}
}

// TestVerifyCover: a cover key no stage is sharded by is a mistake; one
// that shards no stage of the selection covers nothing.
func TestVerifyCover(t *testing.T) {
	p := ranAndRebuilt(t)
	_, err := NewPlan(p.runner(), p.Plan(t), Options{Cover: []string{"methd"}})
	if !errors.Is(err, ErrUnknownShardKey) || !strings.Contains(err.Error(), "methd") {
		t.Errorf("unknown cover key: error %v, want ErrUnknownShardKey naming it", err)
	}
	if _, err := NewPlan(p.runner(), p.Plan(t), Options{Tol: -1}); !errors.Is(err, ErrBadOption) {
		t.Errorf("tolerance -1: error %v, want ErrBadOption", err)
	}

	// A key that shards some stage, with a selection of none it shards,
	// covers nothing.
	r := p.runner()
	r.Only = []string{"models"}
	vp, err := NewPlan(r, p.Plan(t), Options{Cover: []string{"method"}})
	if err != nil {
		t.Fatalf("cover method with only models: %v", err)
	}
	for _, sc := range vp.Stages {
		if sc.Stage.Name != "models" && len(sc.Samples) > 0 {
			t.Errorf("only models: stage %s sampled", sc.Stage.Name)
		}
	}
}

func TestVerifyWritePlan(t *testing.T) {
	p := ranAndRebuilt(t)
	// The plan of a dry run names each sample, why, and its command line.
	vp, err := NewPlan(p.runner(), p.Plan(t), Options{Cover: []string{"method"}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	vp.WritePlan(&out)
	for _, want := range []string{
		"verify plan: 9 instances: 9 eligible in 3 stages, 0 not eligible, 0 up to date\n",
		"reruns 5 samples, which took 28s when cached, each with its own arguments but --out=" + filepath.FromSlash("data/.verify/<instance>\n"),
		"est: 6 eligible, 3 sampled\n",
		"  est/size=5,method=renn  (method=renn; cached run 20s)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
	pipetest.AssertIDs(t, "ran for the plans", p.Ran(t), nil)
}

func TestVerifyRemovesTemporaryFiles(t *testing.T) {
	p := ranAndRebuilt(t)
	// What a killed verify left.
	leftover := p.Path("data/.verify/est/size=3,method=bp/table.parquet")
	if err := os.MkdirAll(filepath.Dir(leftover), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leftover, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := p.States(t)["models/size=3"]; st.State != pipeline.Stale || st.Reason != "binary changed" {
		t.Errorf("before verify: %s (%s), want stale: binary changed", st.State, st.Reason)
	}

	// Interrupted as soon as a sample has started: nothing adopted, nothing left.
	t.Setenv("FAKEPARQUET", "sleep")
	ctx := p.CancelOnStart(t)
	r := p.runner()
	vp, err := NewPlan(r, p.Plan(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := p.stamps(t)
	if err := Run(ctx, r, vp); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted verify: error %v, want context.Canceled", err)
	}
	p.assertNoVerifyDir(t)
	p.assertStates(t, before, nil)
	var sum bytes.Buffer
	vp.WriteSummary(&sum)
	if !strings.Contains(sum.String(), "interrupted; nothing adopted") {
		t.Errorf("summary of an interrupted verify:\n%s", sum.String())
	}

	// Run again, to the end.
	t.Setenv("FAKEPARQUET", "")
	vp, err = NewPlan(r, p.Plan(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), r, vp); err != nil {
		t.Fatal(err)
	}
	p.assertNoVerifyDir(t)
	p.assertStates(t, before, []string{"models", "est", "score"})
	// Nothing but the stamps changed in the output directories.
	err = filepath.WalkDir(p.Path("data"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
