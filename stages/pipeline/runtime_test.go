package pipeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/renn-go/renn/stages/pipeline/config"
)

func TestParts(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC)
	at := func(min float64) time.Time { return t0.Add(time.Duration(min * float64(time.Minute))) }
	run := func(from, to float64) Part {
		return Part{Start: at(from), End: at(to), Instances: 1, Seconds: (to - from) * 60}
	}
	tests := []struct {
		name string
		runs []Part
		want []Part // Start, End, Instances only
		busy float64
	}{
		{"none", nil, nil, 0},
		{"one", []Part{run(0, 10)}, []Part{{Start: at(0), End: at(10), Instances: 1}}, 600},
		{"two at once", []Part{run(0, 10), run(2, 5)}, []Part{{Start: at(0), End: at(10), Instances: 2}}, 600},
		{"chain, unordered", []Part{run(8, 20), run(0, 10)}, []Part{{Start: at(0), End: at(20), Instances: 2}}, 1200},
		{"short pause joins", []Part{run(0, 10), run(10.5, 11)}, []Part{{Start: at(0), End: at(11), Instances: 2}}, 660},
		{"two sessions", []Part{run(0, 10), run(300, 330), run(305, 340)},
			[]Part{{Start: at(0), End: at(10), Instances: 1}, {Start: at(300), End: at(340), Instances: 2}}, 600 + 2400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := RunTime{Parts: Parts(tt.runs)}
			if len(rt.Parts) != len(tt.want) {
				t.Fatalf("%d parts, want %d: %+v", len(rt.Parts), len(tt.want), rt.Parts)
			}
			for i, p := range rt.Parts {
				w := tt.want[i]
				if !p.Start.Equal(w.Start) || !p.End.Equal(w.End) || p.Instances != w.Instances {
					t.Errorf("part %d = %v..%v (%d instances), want %v..%v (%d)", i, p.Start, p.End, p.Instances, w.Start, w.End, w.Instances)
				}
			}
			if got := rt.Busy(); got != tt.busy {
				t.Errorf("busy %v s, want %v", got, tt.busy)
			}
		})
	}
}

// TestRunTime sums the stamps of the instances that have one, stage by
// stage.
func TestRunTime(t *testing.T) {
	root := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := &config.Stage{Name: "a"}, &config.Stage{Name: "b"}
	var insts []*Instance
	for i, st := range []*config.Stage{a, a, b} {
		dir := filepath.Join(root, st.Name+string(rune('0'+i)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		insts = append(insts, &Instance{ID: filepath.Base(dir), Stage: st, OutDir: dir})
	}
	for i, secs := range map[int]float64{0: 30, 2: 90} {
		start := t0.Add(time.Duration(i) * time.Hour)
		s := &Stamp{Version: stampVersion, ID: insts[i].ID, Started: start, Finished: start.Add(time.Duration(secs) * time.Second), Seconds: secs}
		if err := WriteStamp(insts[i].OutDir, s); err != nil {
			t.Fatal(err)
		}
	}
	rt, statusErr, err := (&Plan{Instances: insts}).RunTime(insts, "")
	if err != nil || statusErr != nil {
		t.Fatal(err, statusErr)
	}
	want := []StageTime{{Stage: "a", Instances: 2, Done: 1, Seconds: 30, Max: 30}, {Stage: "b", Instances: 1, Done: 1, Seconds: 90, Max: 90}}
	if len(rt.Stages) != 2 || rt.Stages[0] != want[0] || rt.Stages[1] != want[1] {
		t.Errorf("stages %+v, want %+v", rt.Stages, want)
	}
	if rt.Instances != 3 || rt.Done != 2 || rt.Seconds != 120 || len(rt.Parts) != 2 || rt.States != nil {
		t.Errorf("run time %+v: want 2 of 3 done in 120 s, two parts, no states", rt)
	}
	if !rt.First.Equal(t0) || !rt.Last.Equal(t0.Add(2*time.Hour+90*time.Second)) {
		t.Errorf("from %v to %v", rt.First, rt.Last)
	}
}
