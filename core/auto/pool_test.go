package auto

import (
	"math"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/infer"
)

// named renames candidate c.
func named(c candidate, name string) candidate {
	c.name = name
	return c
}

// Two credible samplers that agree are pooled: the pool's marginals lie
// between theirs, weighted by the inverse of their squared standard
// errors, its errors are smaller than either's, and it is the sampler
// weighed against the variational answers.
func TestPool(t *testing.T) {
	m := twoVars()
	a := named(mc(0.30, 0.01, 1.001, true), "pt2")
	b := mc(0.32, 0.02, 1.002, true)
	a.res.LogZ, b.res.LogZ = 1.0, 1.3
	a.res.Diagnostics["log_z_se"], b.res.Diagnostics["log_z_se"] = 0.1, 0.2
	cands := withPool(m, []candidate{fake("gbp@faces", kindRegion, 1, 0.2, 1, true, ""), a, b})
	if len(cands) != 4 || !cands[3].pooled {
		t.Fatalf("no pool among %d candidates", len(cands))
	}
	p := cands[3]
	if p.name != "pt2+pt" || p.kind != kindMC || !p.converged() {
		t.Errorf("pool %q kind %d converged %v", p.name, p.kind, p.converged())
	}
	// Weights 1/0.01² and 1/0.02²: 0.8 and 0.2.
	if got, want := p.res.Marginals.Vars[0][1], 0.8*0.30+0.2*0.32; math.Abs(got-want) > 1e-12 {
		t.Errorf("pooled p(x0=1) %v, want %v", got, want)
	}
	if got, want := p.res.Marginals.Factors[0][3], p.res.Marginals.Vars[0][1]; math.Abs(got-want) > 1e-12 {
		t.Errorf("pooled factor marginal %v, variable marginal %v", got, want)
	}
	if got, want := p.se[0][0], math.Hypot(0.8*0.01, 0.2*0.02); math.Abs(got-want) > 1e-12 || got >= 0.01 {
		t.Errorf("pooled standard error %v, want %v (below either run's)", got, want)
	}
	// ln Z by inverse variance: weights 100 and 25.
	if got, want := p.res.LogZ, (100*1.0+25*1.3)/125; math.Abs(got-want) > 1e-12 {
		t.Errorf("pooled ln Z %v, want %v", got, want)
	}
	if got, want := p.res.Diagnostics["log_z_se"], 1/math.Sqrt(125); math.Abs(got-want) > 1e-12 {
		t.Errorf("pooled log_z_se %v, want %v", got, want)
	}
	ch, err := choose(m, cands)
	if err != nil {
		t.Fatal(err)
	}
	if cands[ch.pick].name != "pt2+pt" || ch.cert != infer.CertMonteCarlo || !strings.Contains(ch.reason, "pt2+pt differs from gbp@faces") {
		t.Errorf("chose %s (%s): %s", cands[ch.pick].name, ch.cert, ch.reason)
	}
}

// No pool where the samplers disagree beyond their joint noise, where one
// is not credible or has no finite standard errors, or where there is one
// sampler; a pool of a sampler that did not converge by its own test (but
// passed R-hat) is credible without being converged.
func TestPoolWhen(t *testing.T) {
	m := twoVars()
	pt2 := func(p, se, rhat float64, conv bool) candidate { return named(mc(p, se, rhat, conv), "pt2") }
	tests := []struct {
		name      string
		cands     []candidate
		pooled    bool
		converged bool
	}{
		{"agree", []candidate{pt2(0.30, 0.01, 1, true), mc(0.31, 0.01, 1, true)}, true, true},
		// (0.30 - 0.40)² / (0.01² + 0.01²) = 50.
		{"disagree", []candidate{pt2(0.30, 0.01, 1, true), mc(0.40, 0.01, 1, true)}, false, false},
		{"one not credible", []candidate{pt2(0.30, 0.01, 1.5, false), mc(0.31, 0.01, 1, true)}, false, false},
		{"credible by R-hat", []candidate{pt2(0.30, 0.01, 1.05, false), mc(0.31, 0.01, 1, true)}, true, false},
		{"gibbs not converged", []candidate{gibbsRun(0.30, 0.01, 1.05, false), mc(0.31, 0.01, 1, true)}, false, false},
		{"gibbs and pt", []candidate{gibbsRun(0.30, 0.005, 1, true), mc(0.31, 0.01, 1, true)}, true, true},
		{"NaN error", []candidate{withSE(pt2(0.30, 0.01, 1, true), math.NaN()), mc(0.31, 0.01, 1, true)}, false, false},
		{"one sampler", []candidate{mc(0.31, 0.01, 1, true), failed("pt2", kindMC, "boom")}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := withPool(m, tt.cands)
			pooled := len(got) == len(tt.cands)+1
			if pooled != tt.pooled {
				t.Fatalf("pooled %v, want %v", pooled, tt.pooled)
			}
			if pooled && got[len(got)-1].converged() != tt.converged {
				t.Errorf("pool converged %v, want %v", got[len(got)-1].converged(), tt.converged)
			}
			if pooled && sampler(m, got) != len(got)-1 {
				t.Errorf("the sampler weighed is %s, not the pool", got[sampler(m, got)].name)
			}
		})
	}
}

// Without a pool, of two runs of parallel tempering the credible one is
// weighed, then the one with the smaller errors.
func TestBestPT(t *testing.T) {
	m := twoVars()
	tests := []struct {
		name  string
		cands []candidate
		want  string
	}{
		{"smaller errors", []candidate{named(mc(0.3, 0.02, 1, true), "pt2"), mc(0.31, 0.01, 1, true)}, "pt"},
		{"credible first", []candidate{named(mc(0.3, 0.02, 1, true), "pt2"), mc(0.31, 0.01, 1.5, false)}, "pt2"},
		{"first of equals", []candidate{named(mc(0.3, 0.01, 1, true), "pt2"), mc(0.31, 0.01, 1, true)}, "pt2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if i := bestPT(m, tt.cands); i < 0 || tt.cands[i].name != tt.want {
				t.Errorf("best pt %d, want %s", i, tt.want)
			}
		})
	}
}

// ln Z of a pool: inverse-variance where both runs have one with an error,
// the one that is finite, the plain average without errors.
func TestPoolLogZ(t *testing.T) {
	r := func(logZ, se float64) *infer.Result {
		return &infer.Result{LogZ: logZ, Diagnostics: map[string]float64{"log_z_se": se}}
	}
	nan := math.NaN()
	tests := []struct {
		name       string
		a, b       *infer.Result
		logZ, se   float64
		wantNaNLog bool
	}{
		{"both", r(1, 0.1), r(2, 0.1), 1.5, 0.1 / math.Sqrt2, false},
		{"gibbs has none", r(nan, nan), r(2, 0.3), 2, 0.3, false},
		{"first only", r(1, 0.1), r(math.Inf(1), 0.1), 1, 0.1, false},
		{"no errors", r(1, nan), r(2, 0.1), 1.5, nan, false},
		{"neither", r(nan, nan), r(nan, nan), nan, nan, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logZ, se := poolLogZ(tt.a, tt.b)
			if tt.wantNaNLog != math.IsNaN(logZ) || !tt.wantNaNLog && math.Abs(logZ-tt.logZ) > 1e-12 {
				t.Errorf("ln Z %v, want %v", logZ, tt.logZ)
			}
			if math.IsNaN(tt.se) != math.IsNaN(se) || !math.IsNaN(se) && math.Abs(se-tt.se) > 1e-12 {
				t.Errorf("se %v, want %v", se, tt.se)
			}
		})
	}
}

// A pool's two runs that differ far less than their standard errors say
// show those errors too large: the variational answer's excess over the
// pool is scaled by their spread (at least minNoiseScale), so a bias the
// raw errors would hide overrules it. A single run keeps its errors.
func TestPoolNoiseScale(t *testing.T) {
	m := twoVars()
	// Spread (2 · 0.005²) / (2 · 2 · 0.02²) = 0.03125, so the scale is
	// 0.1; the pool is at 0.3025 with Σ se² = 2 · 0.02² / 2 = 4e-4, and
	// the variational answer 0.01 away has the raw excess 2e-4 / 4e-4 = 0.5.
	a := named(mc(0.300, 0.02, 1, true), "pt2")
	b := mc(0.305, 0.02, 1, true)
	gbp := fake("gbp@faces", kindRegion, 1, 0.3125, 1, true, "")
	cands := withPool(m, []candidate{gbp, a, b})
	if len(cands) != 4 {
		t.Fatal("no pool")
	}
	if got := cands[3].spread; math.Abs(got-0.03125) > 1e-12 {
		t.Errorf("spread %v, want 0.03125", got)
	}
	ch, err := choose(m, cands)
	if err != nil {
		t.Fatal(err)
	}
	if cands[ch.pick].name != "pt2+pt" || math.Abs(ch.excess-5) > 1e-9 {
		t.Errorf("chose %s at excess %v, want the pool at 5: %s", cands[ch.pick].name, ch.excess, ch.reason)
	}
	// One run of the same errors cannot tell the variational answer's bias.
	single := withSE(mc(0.3025, 0.02/math.Sqrt2, 1, true), 0.02/math.Sqrt2)
	ch, err = choose(m, []candidate{gbp, single})
	if err != nil {
		t.Fatal(err)
	}
	if ch.pick != 0 || math.Abs(ch.excess-0.5) > 1e-9 {
		t.Errorf("chose %d at excess %v, want gbp@faces at 0.5: %s", ch.pick, ch.excess, ch.reason)
	}
}

// A pool of runs that did not mix by their own tests (credible by R-hat
// alone) keeps its standard errors: runs stuck in the same modes agree
// closely whatever their error.
func TestPoolNoiseScaleNeedsMixing(t *testing.T) {
	m := twoVars()
	a := named(mc(0.300, 0.02, 1.05, false), "pt2")
	b := mc(0.305, 0.02, 1.05, false)
	gbp := fake("gbp@faces", kindRegion, 1, 0.3125, 1, true, "")
	cands := withPool(m, []candidate{gbp, a, b})
	if len(cands) != 4 || cands[3].converged() {
		t.Fatal("want a pool that did not converge")
	}
	if s := noiseScale(&cands[3]); s != 1 {
		t.Errorf("noise scale %v, want 1", s)
	}
	ch, err := choose(m, cands)
	if err != nil {
		t.Fatal(err)
	}
	if ch.pick != 0 || math.Abs(ch.excess-0.5) > 1e-9 {
		t.Errorf("chose %s at excess %v, want gbp@faces at 0.5", cands[ch.pick].name, ch.excess)
	}
}

// Two runs that differ by more than their standard errors say show those
// errors too small: they are scaled up by the square root of the spread,
// both runs' when both are parallel tempering (pooled or not), the pool's
// alone beside Gibbs sampling; never down.
func TestPoolScalesUp(t *testing.T) {
	m := twoVars()
	// Spread (2 · d²) / (2 · 2 · 0.01²) = d² / 2e-4.
	spreadOf := func(d float64) float64 { return d * d / 2e-4 }
	tests := []struct {
		name            string
		first           candidate
		d               float64 // the second run's p(x0=1) is 0.3 + d
		pooled          bool
		runScale, scale float64 // of the runs' errors, of the pool's
	}{
		{"pt, spread 2", named(mc(0.3, 0.01, 1, true), "pt2"), 0.02, true, math.Sqrt(2), math.Sqrt(2)},
		{"pt, spread 8", named(mc(0.3, 0.01, 1, true), "pt2"), 0.04, false, math.Sqrt(8), 0},
		{"pt, spread 0.5", named(mc(0.3, 0.01, 1, true), "pt2"), 0.01, true, 1, 1},
		{"gibbs, spread 2", gibbsRun(0.3, 0.01, 1, true), 0.02, true, 1, math.Sqrt(2)},
		{"gibbs, spread 8", gibbsRun(0.3, 0.01, 1, true), 0.04, false, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cands := withPool(m, []candidate{tt.first, mc(0.3+tt.d, 0.01, 1, true)})
			if got := len(cands) == 3; got != tt.pooled {
				t.Fatalf("pooled %v, want %v", got, tt.pooled)
			}
			for _, c := range cands[:2] {
				if got := c.se[0][0] / 0.01; math.Abs(got-tt.runScale) > 1e-9 {
					t.Errorf("%s: errors scaled by %v, want %v", c.name, got, tt.runScale)
				}
			}
			if !tt.pooled {
				return
			}
			p := cands[2]
			fa := 0.5 // equal errors before scaling: equal weights
			if got, want := p.se[0][0], tt.scale*math.Hypot(fa*0.01, fa*0.01); math.Abs(got-want) > 1e-12 {
				t.Errorf("pool's error %v, want %v", got, want)
			}
			if want := math.Min(spreadOf(tt.d), 1); math.Abs(p.spread-want) > 1e-9 {
				t.Errorf("spread left %v, want %v", p.spread, want)
			}
		})
	}
}

// Beside Gibbs sampling the spread does not scale the pool's noise: it
// measures parallel tempering's larger errors, not the pool's.
func TestPoolNoiseScaleNotBesideGibbs(t *testing.T) {
	m := twoVars()
	cands := withPool(m, []candidate{gibbsRun(0.300, 0.02, 1, true), mc(0.305, 0.02, 1, true)})
	if len(cands) != 3 || !cands[2].converged() {
		t.Fatal("want a converged pool")
	}
	if s := noiseScale(&cands[2]); s != 1 {
		t.Errorf("noise scale %v beside Gibbs sampling, want 1", s)
	}
}
