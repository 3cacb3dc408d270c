package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/internal/pipetest"
)

const usageConfig = `
data = "data"

[stage.big]
run = ["fakestage"]
flags = { value = "big", alloc = 64, log = "LOG" }
untracked = ["log"]

[stage.small]
run = ["fakestage"]
flags = { value = "small", log = "LOG" }
untracked = ["log"]
inputs = { in = "big" }
`

// TestStampRecordsUsage checks that a local run records the peak memory
// and CPU time of each stage's process in its stamp.
func TestStampRecordsUsage(t *testing.T) {
	p := newProject(t, usageConfig)
	rep := p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "ran", rep.IDs(Ran), []string{"big", "small"})
	big, err := pipeline.ReadStamp(p.Path("data/big"))
	if err != nil {
		t.Fatal(err)
	}
	small, err := pipeline.ReadStamp(p.Path("data/small"))
	if err != nil {
		t.Fatal(err)
	}
	if big.CPUSeconds <= 0 || big.CPUSeconds > big.Seconds*float64(runtime.NumCPU())+0.1 {
		t.Errorf("big: cpu_seconds %g with %g s of wall time", big.CPUSeconds, big.Seconds)
	}
	if runtime.GOOS != "linux" {
		return // rusage's units and support vary; Linux is where it is known
	}
	if big.MaxRSSKiB < 64<<10 || big.MaxRSSKiB > 1<<20 {
		t.Errorf("big touched 64 MiB: max_rss_kib %d", big.MaxRSSKiB)
	}
	if small.MaxRSSKiB <= 0 || small.MaxRSSKiB >= big.MaxRSSKiB {
		t.Errorf("small: max_rss_kib %d, want between 0 and big's %d", small.MaxRSSKiB, big.MaxRSSKiB)
	}
	for _, res := range rep.Results {
		if res.Usage.MaxRSSKiB <= 0 {
			t.Errorf("%s: result without usage", res.Instance.ID)
		}
	}
}

// TestStampWithoutUsageIsUpToDate checks that stamps without the usage
// fields load and leave their instances up to date: usage is not part of
// the fingerprint.
func TestStampWithoutUsageIsUpToDate(t *testing.T) {
	p := newProject(t, usageConfig)
	p.run(t, p.runner(), nil)
	p.Ran(t)
	for _, id := range []string{"big", "small"} {
		path := filepath.Join(p.Path("data/"+id), pipeline.StampName)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["max_rss_kib"]; !ok && runtime.GOOS == "linux" {
			t.Errorf("%s: stamp has no max_rss_kib", id)
		}
		delete(m, "max_rss_kib")
		delete(m, "cpu_seconds")
		if b, err = json.MarshalIndent(m, "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := pipeline.ReadStamp(p.Path("data/" + id))
		if err != nil {
			t.Fatalf("%s: an old stamp does not load: %v", id, err)
		}
		if st.MaxRSSKiB != 0 || st.CPUSeconds != 0 {
			t.Errorf("%s: old stamp reads usage %d KiB, %g s", id, st.MaxRSSKiB, st.CPUSeconds)
		}
	}
	for id, st := range p.States(t) {
		if st.State != pipeline.UpToDate {
			t.Errorf("%s with an old stamp: %s (%s), want up to date", id, st.State, st.Reason)
		}
	}
	rep := p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "second run: ran", p.Ran(t), nil)
	pipetest.AssertIDs(t, "second run: up to date", rep.IDs(Skipped), []string{"big", "small"})
}
