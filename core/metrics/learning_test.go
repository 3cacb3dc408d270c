package metrics

import (
	"math"
	"slices"
	"testing"
)

// Seeds sort as numbers where they are numbers; "" (a single seed) first.
func TestBySeed(t *testing.T) {
	var runs []LearningRun
	for _, seed := range []string{"10", "2", "1", "b", "", "2"} {
		runs = append(runs, LearningRun{Seed: seed})
	}
	by, seeds := BySeed(runs)
	if want := []string{"", "1", "2", "10", "b"}; !slices.Equal(seeds, want) {
		t.Errorf("seeds %q, want %q", seeds, want)
	}
	if len(by["2"]) != 2 {
		t.Errorf("seed 2 has %d runs, want 2", len(by["2"]))
	}
}

// Gaps are taken seed by seed to the reference's run of the same seed,
// over the seeds both ran.
func TestPairBySeed(t *testing.T) {
	run := func(seed string, nll ...float64) LearningRun { return LearningRun{Model: "0", Seed: seed, NLL: nll} }
	mine := []LearningRun{run("1", 9, 5, 4), run("2", 9, 6, 7), run("3", 1)}
	ref := []LearningRun{run("1", 9, 3, 3), run("2", 9, 4, 5)}
	p := PairBySeed(mine, ref, 2, nil)
	if !slices.Equal(p.Seeds, []string{"1", "2"}) {
		t.Fatalf("seeds %q, want 1 and 2", p.Seeds)
	}
	// Seed 1: last 4-3, tail (5+4)/2-(3+3)/2, best 4-3; seed 2: 7-5, 6.5-4.5, 6-4.
	want := []RunNLL{{Last: 1, Tail: 1.5, Best: 1}, {Last: 2, Tail: 2, Best: 2}}
	for i, g := range p.Gap {
		if math.Abs(g.Last-want[i].Last)+math.Abs(g.Tail-want[i].Tail)+math.Abs(g.Best-want[i].Best) > 1e-12 {
			t.Errorf("seed %s: gap %+v, want %+v", p.Seeds[i], g, want[i])
		}
	}
	if p := PairBySeed(mine, ref, 2, []string{"2"}); !slices.Equal(p.Seeds, []string{"2"}) {
		t.Errorf("only seed 2: %q", p.Seeds)
	}
	if got := CommonSeeds(ref, mine, nil); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("CommonSeeds %q", got)
	}
}

// A fast method with epochs of 1.5 s against a slow run of 3 epochs of 2
// s: its 4th epoch ends at 6 s, the slow run's whole run.
func TestAtWallTime(t *testing.T) {
	slow := []LearningRun{{Model: "0", NLL: []float64{6, 5.3, 5.5}, Seconds: []float64{2, 2, 2}}}
	fast := []LearningRun{{Model: "0", NLL: []float64{7, 6, 5.4, 5.25, 5.1}, Seconds: []float64{1.5, 1.5, 1.5, 1.5, 1.5}}}
	ref := []LearningRun{{Model: "0", NLL: []float64{6, 5.1, 5.2}}}
	p, ok := AtWallTime(slow, fast, ref, 0)
	if !ok || p.Seconds != 6 || !slices.Equal(p.Epochs, []int{4}) || p.NLL != 5.25 || p.Whole != 0 || p.Models != 1 {
		t.Fatalf("AtWallTime = %+v, %v", p, ok)
	}
	if math.Abs(p.Gap-0.05) > 1e-12 || math.Abs(p.SlowGap-0.3) > 1e-12 || p.GapSeeds != 1 {
		t.Errorf("gaps %v and %v over %d seeds, want +0.05 and +0.3 over 1", p.Gap, p.SlowGap, p.GapSeeds)
	}
	if _, ok := AtWallTime(slow, nil, ref, 0); ok {
		t.Error("no fast run compared")
	}
}
