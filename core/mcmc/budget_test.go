package mcmc

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/infer/infertest"
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
// Blocks off: drawn as a block, the cycle needs no search, and the sweeps
// take the whole budget.
func TestBudgetCoversSetUp(t *testing.T) {
	const n, budget = 20, 60
	o := PTDefaultOptions()
	o.Sweeps, o.MaxSeconds, o.Temps, o.Blocks = 0, budget, 4, BlocksOff
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

	o.Blocks = BlocksAuto
	if s, err = NewPT(o); err != nil {
		t.Fatal(err)
	}
	clock = &tickClock{}
	if res, err = s.Infer(infer.WithClock(context.Background(), clock.now), colouring(n)); err != nil {
		t.Fatal(err)
	}
	// Every chain after the first reads the clock once to ask whether it
	// may search for a start of its own; the rest of the budget is sweeps.
	if res.Diagnostics["block_vars"] != n || res.Iterations != budget-(o.Chains-1) || clock.reads != budget+1 {
		t.Errorf("blocks auto: %d sweeps after %d readings, budget %d s (diagnostics %v)", res.Iterations, clock.reads, budget, res.Diagnostics)
	}

	o.MaxSeconds, o.Blocks = 5, BlocksOff
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

// Starting the chains is inside the time budget: once it is spent, chains
// whose start would need a search share the first chain's configuration
// (feasible, so the answer still respects the zeros), and the call runs
// its one sweep. The budget here is the clock readings of a one-chain call,
// so the first chain's search ends within it and the second's does not.
// With time left every chain searches its own start.
func TestStartsWithinBudget(t *testing.T) {
	m := infertest.SoftCSP(12, 16, 1)
	for _, tc := range []struct {
		name   string
		chains int
		new    func(chains, sweeps int, budget float64) (infer.Method, error)
	}{
		{"gibbs", 4, func(chains, sweeps int, budget float64) (infer.Method, error) {
			o := DefaultOptions()
			o.Chains, o.Sweeps, o.MaxSeconds = chains, sweeps, budget
			return New(o)
		}},
		{"pcd", 20, func(chains, sweeps int, budget float64) (infer.Method, error) {
			o := PCDDefaultOptions()
			o.Chains, o.Sweeps, o.MaxSeconds = chains, sweeps, budget
			return NewPCD(o)
		}},
	} {
		one, err := tc.new(1, 1, 1e9)
		if err != nil {
			t.Fatal(err)
		}
		clock := &tickClock{}
		if _, err := one.Infer(infer.WithClock(context.Background(), clock.now), m); err != nil {
			t.Fatal(err)
		}
		budget := float64(clock.reads)
		for _, ctx := range []context.Context{infer.WithClock(context.Background(), (&tickClock{}).now), context.Background()} {
			meth, err := tc.new(tc.chains, 1000, budget)
			if err != nil {
				t.Fatal(err)
			}
			res, err := meth.Infer(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if why := infer.VerifyMarginals(m, res, nil); why != "" {
				t.Errorf("%s: %s", tc.name, why)
			}
			if ctx == context.Background() {
				if _, ok := res.Diagnostics["shared_starts"]; ok {
					t.Errorf("%s: shared starts with time left: %v", tc.name, res.Diagnostics)
				}
				continue
			}
			if res.Diagnostics["shared_starts"] != float64(tc.chains-1) || res.Iterations > 1 || res.Diagnostics["time_limit"] != 1 {
				t.Errorf("%s: %d sweeps, diagnostics %v", tc.name, res.Iterations, res.Diagnostics)
			}
		}
	}
}
