package auto

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// twoVars is two binary variables joined by a factor, variable 1 observed
// (a point-mass unary factor): only variable 0 is compared.
func twoVars() *mrf.Model {
	return &mrf.Model{Cards: []int{2, 2}, Factors: []mrf.Factor{
		{Vars: []int{0, 1}, LogTable: []float64{0.5, 0, 0, 0.5}},
		{Vars: []int{1}, LogTable: []float64{math.Inf(-1), 0}},
	}}
}

// answer returns consistent marginals with p(x0 = 1) = p and x1 = 1.
func answer(p float64) mrf.Marginals {
	return mrf.Marginals{
		Vars:    [][]float64{{1 - p, p}, {0, 1}},
		Factors: [][]float64{{0, 1 - p, 0, p}, {0, 1}},
	}
}

// fake returns a candidate with an answer of p(x0 = 1) = p and ln Z logZ.
func fake(name string, k kind, rank int, p, logZ float64, converged bool, check string) candidate {
	return candidate{name: name, kind: k, rank: rank, check: check,
		res: &infer.Result{Marginals: answer(p), LogZ: logZ, Status: statusIf(converged && check == ""), Diagnostics: map[string]float64{}}}
}

// mc is parallel tempering's candidate with standard error se on every
// state, converged (mixed) or not, and split R-hat rhat.
func mc(p, se, rhat float64, converged bool) candidate {
	c := fake("pt", kindMC, 0, p, 1, converged, "")
	c.se = [][]float64{{se, se}, {0, 0}}
	c.res.Diagnostics["rhat_max"] = rhat
	return c
}

func failed(name string, k kind, why string) candidate {
	return candidate{name: name, kind: k, err: errors.New(why)}
}

// malformed is a candidate whose marginals do not sum to 1.
func malformed(name string, k kind) candidate {
	c := fake(name, k, 1, 0.5, 1, false, "variable 0: marginal sums to 1.5")
	c.res.Marginals.Vars[0] = []float64{0.5, 1}
	return c
}

var (
	mfLow   = fake("mf", kindMF, 0, 0.2, 0.5, true, "")
	trwHigh = fake("trw", kindTRW, 0, 0.4, 3, false, "")
)

// TestChoose checks the rule of the package comment on fake candidates.
func TestChoose(t *testing.T) {
	tests := []struct {
		name   string
		cands  []candidate
		pick   string
		cert   string
		reason string // a fragment of the reason
	}{
		{"exact wins", []candidate{fake("exact", kindExact, 0, 0.3, 1, true, ""), fake("gbp@faces", kindRegion, 2, 0.31, 1, true, ""), mc(0.3, 0.01, 1, true)},
			"exact", infer.CertExact, "exact inference"},
		{"exact that failed its check is passed over", []candidate{fake("exact", kindExact, 0, 0.3, 1, true, "ln Z is NaN"), fake("gbp@faces", kindRegion, 2, 0.31, 1, true, "")},
			"gbp@faces", infer.CertConverged, "largest region graph"},
		{"largest converged region graph", []candidate{fake("bp", kindRegion, 0, 0.35, 1, true, ""), fake("gbp@blocks3", kindRegion, 2, 0.3, 1, true, ""), fake("gbp@faces", kindRegion, 1, 0.32, 1, true, "")},
			"gbp@blocks3", infer.CertConverged, "largest region graph"},
		{"unconverged larger graph loses to converged smaller", []candidate{fake("gbp@blocks3", kindRegion, 2, 0.3, 1, false, ""), fake("gbp@faces", kindRegion, 1, 0.32, 1, true, "")},
			"gbp@faces", infer.CertConverged, "largest region graph"},
		// excess = (0.1² + 0.1²) / (0.01² + 0.01²) = 100: parallel tempering overrules.
		{"pt shows the bias", []candidate{mfLow, trwHigh, fake("gbp@faces", kindRegion, 1, 0.4, 1, true, ""), mc(0.3, 0.01, 1, true)},
			"pt", infer.CertMonteCarlo, "bias shows"},
		{"pt credible by R-hat only: bounds", []candidate{mfLow, trwHigh, fake("gbp@faces", kindRegion, 1, 0.4, 1, true, ""), mc(0.3, 0.01, 1.05, false)},
			"pt", infer.CertBounds, "bias shows"},
		{"pt credible by R-hat only, no bounds: none", []candidate{fake("gbp@faces", kindRegion, 1, 0.4, 1, true, ""), mc(0.3, 0.01, 1.05, false)},
			"pt", infer.CertNone, "bias shows"},
		// excess = 2 (0.005²) / 2 (0.01²) = 0.25: within the noise.
		{"pt agrees", []candidate{fake("gbp@faces", kindRegion, 1, 0.305, 1, true, ""), mc(0.3, 0.01, 1, true)},
			"gbp@faces", infer.CertConverged, "at most 1"},
		// excess = 2 (0.015²) / 2 (0.01²) = 2.25: the noise cannot tell.
		{"pt cannot tell, nothing corroborates", []candidate{fake("gbp@faces", kindRegion, 1, 0.315, 1, true, ""), fake("bp", kindRegion, 0, 0.33, 1, true, ""), mc(0.3, 0.01, 1, true)},
			"pt", infer.CertMonteCarlo, "no other region run corroborates"},
		{"pt cannot tell, bp corroborates", []candidate{fake("gbp@faces", kindRegion, 1, 0.315, 1, true, ""), fake("bp", kindRegion, 0, 0.31500001, 1, true, ""), mc(0.3, 0.01, 1, true)},
			"gbp@faces", infer.CertConverged, "bp agrees with it"},
		{"an unconverged run does not corroborate", []candidate{fake("gbp@faces", kindRegion, 1, 0.315, 1, true, ""), fake("bp", kindRegion, 0, 0.315, 1, false, ""), mc(0.3, 0.01, 1, true)},
			"pt", infer.CertMonteCarlo, "no other region run corroborates"},
		{"pt did not mix", []candidate{fake("gbp@faces", kindRegion, 1, 0.4, 1, true, ""), mc(0.3, 0.01, 1.5, false)},
			"gbp@faces", infer.CertConverged, "did not mix"},
		{"nothing variational converged, pt credible", []candidate{mfLow, trwHigh, fake("gbp@faces", kindRegion, 1, 0.4, 1, false, ""), mc(0.3, 0.01, 1.01, true)},
			"pt", infer.CertMonteCarlo, "no variational method converged"},
		{"nothing credible: a consistent region run", []candidate{mfLow, trwHigh, fake("bp", kindRegion, 0, 0.38, 1, false, ""), fake("gbp@faces", kindRegion, 1, 0.4, 1, false, "region 3 and its parent 1 differ"), mc(0.3, 0.01, 2, false)},
			"bp", infer.CertBounds, "best left"},
		{"nothing credible, no consistent region run: pt", []candidate{mfLow, trwHigh, fake("bp", kindRegion, 0, 0.38, 1, false, "factor 0 and variable 0 marginals differ"), fake("gbp@faces", kindRegion, 1, 0.4, 1, false, "region 3 and its parent 1 differ"), mc(0.3, 0.01, 2, false)},
			"pt", infer.CertBounds, "best left"},
		{"nothing credible, no pt: the largest usable graph", []candidate{mfLow, trwHigh, fake("bp", kindRegion, 0, 0.38, 1, false, "factor 0 and variable 0 marginals differ"), fake("gbp@faces", kindRegion, 1, 0.4, 1, false, "region 3 and its parent 1 differ"), failed("pt", kindMC, "boom")},
			"gbp@faces", infer.CertBounds, "best left"},
		{"nothing credible, no region run: pt", []candidate{failed("gbp@faces", kindRegion, "boom"), mc(0.3, 0.01, 2, false)},
			"pt", infer.CertNone, "best left"},
		{"mean field last but one", []candidate{mfLow, malformed("gbp@faces", kindRegion), failed("pt", kindMC, "boom")},
			"mf", infer.CertNone, "best left"},
		{"malformed pt is not an answer", []candidate{fake("gbp@faces", kindRegion, 1, 0.4, 1, true, ""), malformed("pt", kindMC)},
			"gbp@faces", infer.CertConverged, "gave no answer"},
	}
	m := twoVars()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := choose(m, tt.cands)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.cands[ch.pick].name; got != tt.pick || ch.cert != tt.cert {
				t.Errorf("chose %s (%s), want %s (%s): %s", got, ch.cert, tt.pick, tt.cert, ch.reason)
			}
			if !strings.Contains(ch.reason, tt.reason) {
				t.Errorf("reason %q lacks %q", ch.reason, tt.reason)
			}
		})
	}
}

// gibbsRun is Gibbs sampling's candidate with standard error se on every
// state and split R-hat rhat, converged (R-hat within its own test) or not.
func gibbsRun(p, se, rhat float64, converged bool) candidate {
	c := mc(p, se, rhat, converged)
	c.name = "gibbs"
	return c
}

// Of the two samplers, Gibbs sampling is weighed against the variational
// answers instead of parallel tempering only when it converged, has the
// smaller standard errors and agrees with credible parallel tempering.
func TestChooseSampler(t *testing.T) {
	gbp := fake("gbp@faces", kindRegion, 1, 0.4, 1, true, "")
	tests := []struct {
		name   string
		cands  []candidate
		pick   string
		cert   string
		reason string
	}{
		{"gibbs's errors smaller", []candidate{gbp, gibbsRun(0.31, 0.002, 1.001, true), mc(0.3, 0.01, 1, true)},
			"gibbs", infer.CertMonteCarlo, "gibbs differs from gbp@faces"},
		{"pt's errors smaller", []candidate{gbp, gibbsRun(0.31, 0.02, 1.001, true), mc(0.3, 0.01, 1, true)},
			"pt", infer.CertMonteCarlo, "pt differs from gbp@faces"},
		{"gibbs not converged, R-hat 1.05: pt", []candidate{gbp, gibbsRun(0.31, 0.002, 1.05, false), mc(0.3, 0.01, 1.05, false)},
			"pt", infer.CertNone, "pt differs"},
		// Gibbs's chains may all sit in one mode: without credible pt to
		// corroborate it, it is not weighed.
		{"pt not credible, gibbs converged", []candidate{gbp, gibbsRun(0.31, 0.02, 1.001, true), mc(0.3, 0.001, 1.5, false)},
			"gbp@faces", infer.CertConverged, "pt did not mix"},
		// (0.31 - 0.6)² / (0.002² + 0.01²) = 809: Gibbs stuck in a mode.
		{"gibbs disagrees with pt", []candidate{gbp, gibbsRun(0.31, 0.002, 1.001, true), mc(0.6, 0.01, 1, true)},
			"pt", infer.CertMonteCarlo, "pt differs"},
		{"no pt: gibbs", []candidate{failed("gbp@faces", kindRegion, "boom"), gibbsRun(0.31, 0.002, 1.001, true), failed("pt", kindMC, "boom")},
			"gibbs", infer.CertMonteCarlo, "gibbs is credible"},
		{"gibbs with a NaN error loses", []candidate{gbp, withSE(gibbsRun(0.31, 0.001, 1.001, true), math.NaN()), mc(0.3, 0.01, 1, true)},
			"pt", infer.CertMonteCarlo, "pt differs"},
		{"nothing credible: pt before gibbs", []candidate{failed("gbp@faces", kindRegion, "boom"), gibbsRun(0.31, 0.001, 2, false), mc(0.3, 0.01, 2, false)},
			"pt", infer.CertNone, "best left"},
		{"nothing credible, no pt: gibbs", []candidate{failed("gbp@faces", kindRegion, "boom"), gibbsRun(0.31, 0.001, 2, false), failed("pt", kindMC, "boom")},
			"gibbs", infer.CertNone, "best left"},
		{"no variational answer, gibbs better", []candidate{mfLow, trwHigh, fake("gbp@faces", kindRegion, 1, 0.4, 1, false, ""), gibbsRun(0.31, 0.002, 1.001, true), mc(0.3, 0.01, 1, true)},
			"gibbs", infer.CertMonteCarlo, "gibbs is credible"},
	}
	m := twoVars()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := choose(m, tt.cands)
			if err != nil {
				t.Fatal(err)
			}
			got := tt.cands[ch.pick].name
			if got != tt.pick || ch.cert != tt.cert {
				t.Errorf("chose %s (%s), want %s (%s): %s", got, ch.cert, tt.pick, tt.cert, ch.reason)
			}
			if !strings.Contains(ch.reason, tt.reason) {
				t.Errorf("reason %q lacks %q", ch.reason, tt.reason)
			}
		})
	}
}

// withSE sets the standard error of variable 0's first state.
func withSE(c candidate, se float64) candidate {
	c.se = [][]float64{{se, c.se[0][1]}, {0, 0}}
	return c
}

// With no usable answer, choose fails naming every run's failure.
func TestChooseNothing(t *testing.T) {
	cands := []candidate{failed("exact", kindExact, "table too large"), malformed("gbp@faces", kindRegion), failed("pt", kindMC, "no feasible state")}
	_, err := choose(twoVars(), cands)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"every method failed", "exact: table too large", "gbp@faces: variable 0: marginal sums to 1.5", "pt: no feasible state"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// The bounds are mean field's ln Z when its answer passed the check, and
// TRW's whenever finite.
func TestBounds(t *testing.T) {
	badMF := fake("mf", kindMF, 0, 0.2, 0.5, false, "variable 0: probability on an excluded state")
	infTRW := fake("trw", kindTRW, 0, 0.4, math.Inf(1), false, "")
	for _, tc := range []struct {
		name  string
		cands []candidate
		want  *Bounds
	}{
		{"both", []candidate{mfLow, trwHigh}, &Bounds{Lower: 0.5, Upper: 3, Width: 2.5}},
		{"unconverged trw still bounds", []candidate{mfLow, fake("trw", kindTRW, 0, 0.4, 3, false, "factor 0 and variable 1 marginals differ")}, &Bounds{Lower: 0.5, Upper: 3, Width: 2.5}},
		{"mean field failed its check", []candidate{badMF, trwHigh}, nil},
		{"trw infinite", []candidate{mfLow, infTRW}, nil},
		{"no trw", []candidate{mfLow}, nil},
	} {
		got := bounds(tc.cands)
		if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%s: bounds %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestExcess(t *testing.T) {
	m := twoVars()
	// Variable 1 is observed and left out; variable 0's states differ by
	// 0.1 each with standard errors 0.05: (2 * 0.01) / (2 * 0.0025) = 4.
	if got := excess(m, answer(0.4), answer(0.3), [][]float64{{0.05, 0.05}, {0, 0}}); math.Abs(got-4) > 1e-12 {
		t.Errorf("excess %v, want 4", got)
	}
	if got := excess(m, answer(0.4), answer(0.3), [][]float64{{math.NaN(), math.NaN()}, {0, 0}}); !math.IsNaN(got) {
		t.Errorf("excess without standard errors %v, want NaN", got)
	}
	if got := excess(m, answer(0.3), answer(0.3), [][]float64{{0, 0}, {0, 0}}); got != 0 {
		t.Errorf("excess of equal answers %v, want 0", got)
	}
}

// statusIf is infer.Converged if converged, else infer.NotConverged.
func statusIf(converged bool) infer.Status {
	if converged {
		return infer.Converged
	}
	return infer.NotConverged
}
