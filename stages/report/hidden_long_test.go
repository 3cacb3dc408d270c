package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/learnmrf"
)

// longStage learns the hidden fixture's RBM with the exact clamped phase
// at a longer budget, sharded as the paper's hidden_*_long stages.
const longStage = `
[stage.hidden_rbm_long]
run = ["learn-mrf"]
flags = { clamped-exact = true, epochs = 12 }
inputs = { models = "hidden_rbm", samples = "hidden_rbm_samples" }
[stage.hidden_rbm_long.shard]
method = ["exact", "bp", "gbp", "renn-mp"]
`

// longCurve is 6, 6 and then ten epochs of v, the last of them last.
func longCurve(v, last float64) []float64 {
	c := []float64{6, 6}
	for range 9 {
		c = append(c, v)
	}
	return append(c, last)
}

// writeLong adds longStage to the pcd fixture (pcd epochs of pcdSeconds;
// see writePCD) with the given curves by shard method (labelled with the
// -exact-clamped suffix but exact; a method without a curve has not run),
// every epoch 0.5 s: renn-mp-exact-clamped's 12 epochs take 6 s.
func writeLong(t *testing.T, pcdSeconds float64, curves map[string][]float64) string {
	t.Helper()
	cfg := writePCD(t, pcdSeconds)
	runs := map[string]longRun{}
	for m, nll := range curves {
		runs["hidden_rbm_long/method="+m] = longRun{nll: nll, secs: 0.5}
	}
	writeLongRuns(t, cfg, longStage, runs)
	return cfg
}

// longRun is the curve of one instance of a longer-budget stage: its test
// NLL per epoch, every epoch secs seconds.
type longRun struct {
	nll  []float64
	secs float64
}

// writeLongRuns appends stages to cfg and writes the curves of runs, keyed
// by instance ID (stage/method=m[,seed=k]): model 0, labelled as learn-mrf
// --clamped-exact labels method m.
func writeLongRuns(t *testing.T, cfg, stages string, runs map[string]longRun) {
	t.Helper()
	appendStages(t, cfg, stages)
	root := filepath.Dir(cfg)
	for id, run := range runs {
		shard := id[strings.Index(id, "/")+1:]
		label, _, _ := strings.Cut(strings.TrimPrefix(shard, "method="), ",")
		if label != "exact" {
			label += learnmrf.ClampedExactSuffix
		}
		dir := mkdir(t, filepath.Join(root, "data", id))
		var rows []formats.CurveRow
		for e, v := range run.nll {
			rows = append(rows, formats.CurveRow{ModelID: 0, Method: label, Iteration: int32(e + 1), TestNLL: v, Seconds: run.secs})
		}
		writeCurveRun(t, dir, rows, time.Date(2026, 1, 2, 4, 0, 0, 0, time.UTC), run.secs*float64(len(run.nll)))
	}
}

// The longer budget's tables, claims and pcd line, with exact learning at
// 5.1 (its last ten epochs), bp-exact-clamped at 5.3 (gap +0.2) and pcd
// (writePCD) at 5.25 after the 4 epochs of 1.5 s that fit into
// renn-mp-exact-clamped's 6 s (gap +0.15).
func TestHiddenLongClaims(t *testing.T) {
	exact, bp := longCurve(5.1, 5.1), longCurve(5.3, 5.3)
	for _, tc := range []struct {
		name     string
		pcdSecs  float64
		gbp      []float64 // nil: not run
		renn     []float64
		want     []string
		wantNone []string
	}{
		{
			// A jump at the last epoch: worse than bp by 0.3 there, but
			// over the last 10 epochs (mean 5.24, gap +0.14) better; worse
			// than pcd by 0.35.
			name: "worse than bp at the last epoch", pcdSecs: 1.5, gbp: longCurve(5.4, 5.4), renn: longCurve(5.2, 5.6),
			want: []string{
				"**Longer budget:** renn-mp-exact-clamped's gap to exact learning is at most the better of bp-exact-clamped's and gbp-exact-clamped's (within 0.001 nats, the tables' precision) on **0 of 1** settings at the last epoch and on **1 of 1** in the mean of the last 10 epochs.",
				"Where it is not: bipartite n=5 γ=0.5: last epoch +0.500 against bp-exact-clamped's +0.200 (0.300 nats worse), mean of the last 10 epochs +0.140 against bp-exact-clamped's +0.200 (holds).",
				"At equal wall time, renn-mp-exact-clamped's gap (last epoch) is at most pcd's at renn-mp-exact-clamped's wall time (within 0.001 nats) on **0 of 1** settings. Where it is not: bipartite n=5 γ=0.5: +0.500 against +0.150 (0.350 nats worse; renn-mp-exact-clamped's gap over its last 10 epochs +0.140).",
				"| renn-mp-exact-clamped | 5.6000 | +0.500 | 5.2400 | +0.140 | 5.2000 | +0.100 | 1 | 12 | 0.500 |",
				"| gbp-exact-clamped | 5.4000 | +0.300 | 5.4000 | +0.300 | 5.4000 | +0.300 | 1 | 12 | 0.500 |",
				"**pcd at renn-mp-exact-clamped's wall time** (6.00 s, renn-mp-exact-clamped's whole run): test NLL 5.2500 (gap to exact +0.150) after 4 epochs, its last epoch within that time.",
			},
		},
		{
			// Gap +0.02: better than bp, gbp and pcd.
			name: "beats bp, gbp and pcd", pcdSecs: 1.5, gbp: longCurve(5.4, 5.4), renn: longCurve(5.12, 5.12),
			want: []string{
				"on **1 of 1** settings at the last epoch and on **1 of 1** in the mean of the last 10 epochs.",
				"(within 0.001 nats) on **1 of 1** settings.",
				"| renn-mp-exact-clamped | 5.1200 | +0.020 | 5.1200 | +0.020 | 5.1200 | +0.020 | 1 | 12 | 0.500 |",
			},
			wantNone: []string{"Where it is not"},
		},
		{
			// gbp is the better rival (+0.15); renn-mp's last epoch (+0.1)
			// beats it and pcd, its last 10 epochs (mean 5.47) do not.
			name: "worse than gbp over the last epochs", pcdSecs: 1.5, gbp: longCurve(5.25, 5.25), renn: longCurve(5.5, 5.2),
			want: []string{
				"on **1 of 1** settings at the last epoch and on **0 of 1** in the mean of the last 10 epochs.",
				"Where it is not: bipartite n=5 γ=0.5: last epoch +0.100 against gbp-exact-clamped's +0.150 (holds), mean of the last 10 epochs +0.370 against gbp-exact-clamped's +0.150 (0.220 nats worse).",
				"(within 0.001 nats) on **1 of 1** settings.",
			},
		},
		{
			// gbp has not run: bp alone is the rival; pcd's epochs of 7 s
			// do not fit into 6 s.
			name: "gbp missing, pcd unfinished", pcdSecs: 7, renn: longCurve(5.2, 5.2),
			want: []string{
				"Not run yet: hidden_rbm_long/method=gbp.",
				"| hidden_rbm_long | 3 / 4 |",
				"on **1 of 1** settings at the last epoch and on **1 of 1** in the mean of the last 10 epochs.",
				"On bipartite n=5 γ=0.5, pcd had not finished an epoch within renn-mp-exact-clamped's wall time.",
				"**pcd at renn-mp-exact-clamped's wall time** (6.00 s, renn-mp-exact-clamped's whole run): pcd had not finished an epoch by then.",
			},
			wantNone: []string{"| gbp-exact-clamped |", "settings. Where it is not"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			curves := map[string][]float64{"exact": exact, "bp": bp, "renn-mp": tc.renn}
			if tc.gbp != nil {
				curves["gbp"] = tc.gbp
			}
			cfg := writeLong(t, tc.pcdSecs, curves)
			d := readHiddenOf(t, cfg)
			doc := markdownOf(t, d)
			long := strings.Index(doc, "### Longer budget, exact clamped phase")
			if long < 0 {
				t.Fatalf("no longer-budget subsection:\n%s", doc)
			}
			for _, want := range append(tc.want, "#### bipartite n=5 γ=0.5, 2 hidden, longer budget", "| exact | 5.1000 | 0.000 | 5.1000 | 0.000 | 5.1000 | 0.000 | 1 | 12 | 0.500 |",
				"| true model | 5.0000 | | | | | | | |", "from stages `hidden_rbm_long`:") {
				if !strings.Contains(doc, want) {
					t.Errorf("section lacks %q", want)
				}
			}
			for _, not := range tc.wantNone {
				if strings.Contains(doc[long:], not) {
					t.Errorf("longer-budget subsection has %q", not)
				}
			}
			// The small budget's part is the same as without the longer
			// budget: its exact run and claims are not mixed with these.
			for _, want := range []string{
				"From stages `hidden_rbm_fit`, `hidden_rbm_pcd`:",
				"| exact | 5.2000 | 0.000 | 5.1000 | 0.000 | 3 | 2.00 |",
				"on **1 of 1** (RENN method, setting) pairs.",
			} {
				if i := strings.Index(doc, want); i < 0 || i > long {
					t.Errorf("small-budget part lacks %q", want)
				}
			}
			if fs, _ := d.figures(); len(fs) != 2 || fs[1].File != "hidden_long_learning_curves.png" || len(fs[1].fig.Panels) != 1 {
				t.Errorf("figures %+v: want the small budget's and the longer budget's", fs)
			}
			if t.Failed() {
				t.Log(doc)
			}
		})
	}
}

// Without hidden_*_long stages, or before any has run, the subsection says
// so.
func TestHiddenLongNotRun(t *testing.T) {
	cfg := writePCD(t, 1.5)
	d := readHiddenOf(t, cfg)
	if doc := markdownOf(t, d); !strings.Contains(doc, "### Longer budget, exact clamped phase\n\nNot run: the config has no hidden_*_long learn-mrf stages") {
		t.Errorf("without the stages:\n%s", doc)
	}
	cfg = writeLong(t, 1.5, nil)
	d = readHiddenOf(t, cfg)
	doc := markdownOf(t, d)
	for _, want := range []string{
		"Not run yet: hidden_rbm_long/method=exact, hidden_rbm_long/method=bp, hidden_rbm_long/method=gbp, hidden_rbm_long/method=renn-mp.",
		"No run of these stages has finished yet.",
		"| hidden_rbm_long | 0 / 4 |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("before the stages ran, section lacks %q:\n%s", want, doc)
		}
	}
	if fs, _ := d.figures(); len(fs) != 1 {
		t.Errorf("%d figures, want the small budget's alone", len(fs))
	}
}

// The section names the runs with the exact clamped phase as learn-mrf
// labels them.
func TestClampedExactSuffix(t *testing.T) {
	spec, err := loadSection("hidden")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range append([]string{spec.Learning.LongRef}, spec.Learning.LongRival...) {
		if !strings.HasSuffix(m, learnmrf.ClampedExactSuffix) {
			t.Errorf("%q does not end in learn-mrf's %q", m, learnmrf.ClampedExactSuffix)
		}
	}
}

// seedStage is longStage sharded over learn-mrf --seed as well.
func seedStage(seeds string) string {
	return longStage + "seed = " + seeds + "\n"
}

// gridLong adds a second setting, a grid of 4 variables with one hidden
// (true NLL 5), learned at the longer budget with one seed (no seed key).
const gridLong = `
[stage.hidden_grid]
run = ["sample-model", "ising"]
flags = { graph = "grid", size = 2, hide = "interior" }
[stage.hidden_grid_samples]
run = ["sample-model", "data"]
inputs = { models = "hidden_grid" }
[stage.hidden_grid_long]
run = ["learn-mrf"]
flags = { clamped-exact = true, epochs = 12 }
inputs = { models = "hidden_grid", samples = "hidden_grid_samples" }
[stage.hidden_grid_long.shard]
method = ["exact", "bp", "gbp", "renn-mp"]
`

// writeGridModels writes the models and samples of gridLong's setting.
func writeGridModels(t *testing.T, cfg string) {
	t.Helper()
	data := filepath.Join(filepath.Dir(cfg), "data")
	infos := []formats.ModelInfoRow{{ModelID: 0, Name: "grid", Cards: []int32{2, 2, 2, 2}, Graph: "grid", Gamma: 1, Hidden: []int32{3}}}
	if err := formats.WriteModelInfo(filepath.Join(mkdir(t, filepath.Join(data, "hidden_grid")), formats.ModelInfoFile), infos, prov); err != nil {
		t.Fatal(err)
	}
	x := []int32{0, 1, 0}
	srows := []formats.SampleRow{{ModelID: 0, Split: "test", X: x, LogP: -4}, {ModelID: 0, Split: "test", X: x, LogP: -6}}
	if err := formats.WriteSamples(filepath.Join(mkdir(t, filepath.Join(data, "hidden_grid_samples")), formats.SamplesFile), srows, prov); err != nil {
		t.Fatal(err)
	}
}

// Several seeds: every gap is taken to exact learning of the same seed and
// averaged over the seeds. On the RBM, seed 1 (exact learning at 5.3,
// bp-exact-clamped +0.2, gbp-exact-clamped +0.3, renn-mp-exact-clamped
// +0.3) fails the claim alone; seeds 2 and 3 (exact 5.1, bp +0.4, gbp
// +0.5, renn-mp +0.1) hold it, and so does the mean over the three (+0.167
// against bp's +0.333). renn-mp's epochs take 0.5 s but on seed 2, 0.25
// s: pcd (epochs of 1.5 s) gets 4, 2 and 4 epochs (NLL 5.25, 6, 5.25; gaps
// -0.05, +0.9, +0.15, mean +0.333).
func TestHiddenLongSeeds(t *testing.T) {
	perSeed := map[string]map[string]float64{
		"1": {"exact": 5.3, "bp": 5.5, "gbp": 5.6, "renn-mp": 5.6},
		"2": {"exact": 5.1, "bp": 5.5, "gbp": 5.6, "renn-mp": 5.2},
		"3": {"exact": 5.1, "bp": 5.5, "gbp": 5.6, "renn-mp": 5.2},
	}
	for _, tc := range []struct {
		name     string
		seeds    []string
		skip     string // an instance that has not run
		grid     bool   // add gridLong's setting, one seed
		want     []string
		wantNone []string
	}{
		{
			name: "seed 1 alone fails", seeds: []string{"1"},
			want: []string{
				"on **0 of 1** settings at the last epoch and on **0 of 1** in the mean of the last 10 epochs. Where it is not: bipartite n=5 γ=0.5: last epoch +0.300 against bp-exact-clamped's +0.200 (0.100 nats worse)",
				"| renn-mp-exact-clamped | 5.6000 | +0.300 | 5.6000 | +0.300 | 5.6000 | +0.300 | 1 | 12 | 0.500 |",
				"on **0 of 1** settings. Where it is not: bipartite n=5 γ=0.5: +0.300 against -0.050 (0.350 nats worse;",
			},
			wantNone: []string{"Seed by seed", "seeds:"},
		},
		{
			name: "the mean over three seeds holds", seeds: []string{"1", "2", "3"},
			want: []string{
				"on **1 of 1** settings at the last epoch and on **1 of 1** in the mean of the last 10 epochs (each gap to exact learning of the same seed, averaged over the seeds all of them ran: 3 on bipartite n=5 γ=0.5).",
				"Seed by seed, against the better rival of the same seed, it holds on 2 of 3 (setting, seed) pairs at the last epoch and on 2 of 3 in the mean of the last 10 epochs.",
				"| exact | 5.1667 | 0.000 | 5.1667 | 0.000 | 5.1667 | 0.000 | 3 | 12 | 0.500 |",
				"| bp-exact-clamped | 5.5000 | +0.333 (+0.200 to +0.400) | 5.5000 | +0.333 (+0.200 to +0.400) | 5.5000 | +0.333 (+0.200 to +0.400) | 3 | 12 | 0.500 |",
				"| renn-mp-exact-clamped | 5.3333 | +0.167 (+0.100 to +0.300) | 5.3333 | +0.167 (+0.100 to +0.300) | 5.3333 | +0.167 (+0.100 to +0.300) | 3 | 12 | 0.417 |",
				"**pcd at renn-mp-exact-clamped's wall time** (5.00 s, renn-mp-exact-clamped's whole run, mean over its 3 seeds: 3.00 to 6.00 s): test NLL 5.5000 (gap to exact +0.333, mean over 3 seeds of the gap to exact learning of the same seed) after [4 2 4] epochs, its last epoch within that time.",
				"At equal wall time, renn-mp-exact-clamped's gap (last epoch, each to exact learning of the same seed and pcd at that seed's wall time, averaged over the seeds) is at most pcd's at renn-mp-exact-clamped's wall time (within 0.001 nats) on **1 of 1** settings.",
			},
			wantNone: []string{"Where it is not"},
		},
		{
			// Seed 3 of exact learning has not run: the gaps are over
			// seeds 1 and 2 (renn-mp +0.2, bp +0.3; pcd -0.05 and +0.9).
			name: "exact learning's seed 3 missing", seeds: []string{"1", "2", "3"}, skip: "hidden_rbm_long/method=exact,seed=3",
			want: []string{
				"Not run yet: hidden_rbm_long/method=exact,seed=3.",
				"on **1 of 1** settings at the last epoch and on **1 of 1** in the mean of the last 10 epochs (each gap to exact learning of the same seed, averaged over the seeds all of them ran: 2 on bipartite n=5 γ=0.5).",
				"it holds on 1 of 2 (setting, seed) pairs at the last epoch",
				"| exact | 5.2000 | 0.000 | 5.2000 | 0.000 | 5.2000 | 0.000 | 2 | 12 | 0.500 |",
				"| renn-mp-exact-clamped | 5.4000 | +0.200 (+0.100 to +0.300) | 5.4000 | +0.200 (+0.100 to +0.300) | 5.4000 | +0.200 (+0.100 to +0.300) | 2 | 12 | 0.417 |",
				"(gap to exact +0.425, mean over 2 seeds of the gap to exact learning of the same seed) after [4 2 4] epochs",
			},
		},
		{
			// A grid with one seed beside the RBM's three: renn-mp
			// +0.2 against bp's +0.1 there.
			name: "one setting with one seed, one with three", seeds: []string{"1", "2", "3"}, grid: true,
			want: []string{
				"on **1 of 2** settings at the last epoch and on **1 of 2** in the mean of the last 10 epochs (each gap to exact learning of the same seed, averaged over the seeds all of them ran: 1 on grid n=4 γ=1, 3 on bipartite n=5 γ=0.5).",
				"Where it is not: grid n=4 γ=1: last epoch +0.200 against bp-exact-clamped's +0.100 (0.100 nats worse), mean of the last 10 epochs +0.200 against bp-exact-clamped's +0.100 (0.100 nats worse).",
				"it holds on 2 of 4 (setting, seed) pairs at the last epoch and on 2 of 4 in the mean",
				"#### grid n=4 γ=1, 1 hidden, longer budget",
				"| renn-mp-exact-clamped | 5.3000 | +0.200 | 5.3000 | +0.200 | 5.3000 | +0.200 | 1 | 12 | 0.500 |",
				"| renn-mp-exact-clamped | 5.3333 | +0.167 (+0.100 to +0.300) |",
				"on **1 of 1** settings.",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writePCD(t, 1.5)
			stages := seedStage("[" + strings.Join(tc.seeds, ", ") + "]")
			runs := map[string]longRun{}
			for _, seed := range tc.seeds {
				for m, v := range perSeed[seed] {
					secs := 0.5
					if m == "renn-mp" && seed == "2" {
						secs = 0.25
					}
					runs["hidden_rbm_long/method="+m+",seed="+seed] = longRun{nll: longCurve(v, v), secs: secs}
				}
			}
			delete(runs, tc.skip)
			if tc.grid {
				writeGridModels(t, cfg)
				stages += gridLong
				for m, v := range map[string]float64{"exact": 5.1, "bp": 5.2, "gbp": 5.4, "renn-mp": 5.3} {
					runs["hidden_grid_long/method="+m] = longRun{nll: longCurve(v, v), secs: 0.5}
				}
			}
			writeLongRuns(t, cfg, stages, runs)
			doc := markdownOf(t, readHiddenOf(t, cfg))
			long := strings.Index(doc, "### Longer budget, exact clamped phase")
			if long < 0 {
				t.Fatalf("no longer-budget subsection:\n%s", doc)
			}
			for _, want := range tc.want {
				if !strings.Contains(doc[long:], want) {
					t.Errorf("longer-budget subsection lacks %q", want)
				}
			}
			for _, not := range tc.wantNone {
				if strings.Contains(doc[long:], not) {
					t.Errorf("longer-budget subsection has %q", not)
				}
			}
			if t.Failed() {
				t.Log(doc[long:])
			}
		})
	}
}
