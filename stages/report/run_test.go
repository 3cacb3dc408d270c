package report

import (
	"testing"
	"time"
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
			rt := RunTime{Parts: parts(tt.runs)}
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
