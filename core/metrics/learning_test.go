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

// The subject's gap against the better rival's: by seed-averaged gap at
// the last epoch and over the tail, and seed by seed against the least
// gap of any rival of the same seed.
func TestCompareBudget(t *testing.T) {
	run := func(seed string, nll ...float64) LearningRun { return LearningRun{Model: "0", Seed: seed, NLL: nll} }
	ref := []LearningRun{run("1", 5, 5), run("2", 5, 5)}
	subject := []LearningRun{run("1", 5.1, 5.3), run("2", 5.1, 5.1)} // gaps: last 0.3, 0.1; tail 0.2, 0.1
	a := []LearningRun{run("1", 5.2, 5.2), run("2", 5.4, 5.4)}       // last 0.2, 0.4; tail 0.2, 0.4
	b := []LearningRun{run("1", 5.5, 5.5), run("2", 5.0, 5.0)}       // last 0.5, 0; tail 0.5, 0
	got, ok := CompareBudget(ref, subject, []string{"a", "b"}, [][]LearningRun{a, b}, 2, 1e-3)
	if !ok || !slices.Equal(got.Seeds, []string{"1", "2"}) {
		t.Fatalf("CompareBudget = %+v, %v", got, ok)
	}
	// Means: subject last 0.2, tail 0.15; a 0.3, 0.3; b 0.25, 0.25.
	if got.Last.Rival != "b" || math.Abs(got.Last.Ref-0.25) > 1e-12 || math.Abs(got.Last.V-0.2) > 1e-12 || !got.Last.Holds() {
		t.Errorf("last %+v, want 0.2 against b's 0.25", got.Last)
	}
	if got.Tail.Rival != "b" || math.Abs(got.Tail.V-0.15) > 1e-12 || !got.Tail.Comparable() {
		t.Errorf("tail %+v, want 0.15 against b's", got.Tail)
	}
	// Last: seed 1 0.3 against min(0.2, 0.5) fails, seed 2 0.1 against 0
	// fails; tail: seed 1 0.2 against 0.2 holds, seed 2 fails.
	if got.SeedHeldLast != 0 || got.SeedHeldTail != 1 {
		t.Errorf("seed by seed held %d and %d, want 0 and 1", got.SeedHeldLast, got.SeedHeldTail)
	}
	if _, ok := CompareBudget(ref, subject, []string{"a"}, [][]LearningRun{nil}, 2, 1e-3); ok {
		t.Error("compared without a rival's runs")
	}
	if _, ok := CompareBudget(ref, nil, []string{"a"}, [][]LearningRun{a}, 2, 1e-3); ok {
		t.Error("compared without the subject's runs")
	}
}
