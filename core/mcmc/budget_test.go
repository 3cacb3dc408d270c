package mcmc

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// tickClock is a fake clock that moves one second at every reading: the
// time a call has used is the number of readings it made.
type tickClock struct {
	t     time.Time
	reads int
}

func (c *tickClock) now() time.Time {
	c.reads++
	c.t = c.t.Add(time.Second)
	return c.t
}

// neq is the table of x != y over k states.
func neq(k int) []float64 {
	t := make([]float64, k*k)
	for s := range k {
		t[s*k+s] = math.Inf(-1)
	}
	return t
}

// colouring returns the 3-colouring of a cycle of n variables (zeros on
// equal neighbours): arc consistency rules nothing out, so a feasible start
// takes one search choice per variable.
func colouring(n int) *mrf.Model {
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range n {
		m.Cards[i] = 3
		m.Factors = append(m.Factors, mrf.Factor{Vars: []int{i, (i + 1) % n}, LogTable: neq(3)})
	}
	return m
}

// pigeons returns k+1 variables of k states, all different: there is no
// feasible configuration, arc consistency does not see it, and the search
// takes thousands of choices to find out.
func pigeons(k int) *mrf.Model {
	m := &mrf.Model{Cards: make([]int, k+1)}
	for i := range k + 1 {
		m.Cards[i] = k
		for j := range i {
			m.Factors = append(m.Factors, mrf.Factor{Vars: []int{j, i}, LogTable: neq(k)})
		}
	}
	return m
}

// The time budget covers the whole call: the search for feasible starts
// counts against it (each of its choices reads the fake clock once, as
// every sweep after the first does), the sweeps stop when it has run out,
// and a search that outlasts it ends the call with an error saying so.
func TestBudgetCoversSetUp(t *testing.T) {
	const n, budget = 20, 60
	o := PTDefaultOptions()
	o.Sweeps, o.MaxSeconds, o.Temps = 0, budget, 4
	s, err := NewPT(o)
	if err != nil {
		t.Fatal(err)
	}
	clock := &tickClock{}
	res, err := s.Infer(infer.WithClock(context.Background(), clock.now), colouring(n))
	if err != nil {
		t.Fatal(err)
	}
	search := clock.reads - res.Iterations // Start, the search's readings, then one per sweep after the first
	if search < o.Chains*n || res.Iterations > budget-o.Chains*n+1 || res.Diagnostics["time_limit"] != 1 {
		t.Errorf("%d sweeps after %d readings in the set-up, budget %d s (diagnostics %v)", res.Iterations, search, budget, res.Diagnostics)
	}

	o.MaxSeconds = 5
	s, err = NewPT(o)
	if err != nil {
		t.Fatal(err)
	}
	clock = &tickClock{}
	_, err = s.Infer(infer.WithClock(context.Background(), clock.now), pigeons(7))
	if err == nil || !strings.Contains(err.Error(), "time budget") || clock.reads > 10 {
		t.Errorf("error %v after %d readings of the clock, want the time budget's after about 5", err, clock.reads)
	}
}
