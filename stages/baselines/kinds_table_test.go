package baselines

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/buildregions"
	"github.com/renn-go/renn/stages/exactinfer"
	"github.com/renn-go/renn/stages/samplemodel"
)

// The table of docs/methods-on-uai-kinds.md: pt, trw, dlgbp, gbp and
// renn-mp, each with a time budget, through run-baselines (UAI result files
// included) on the shipped models of data/uai and on seeded models of every
// generated UAI-like family, judged against exact-infer's answers. Without
// the flag, TestKindsTable checks that the file holds a table with the
// generator's header; with
//
//	go test ./stages/baselines -run TestKindsTable -timeout 40m -kinds-table ../../docs/methods-on-uai-kinds.md
//
// it runs every method on every model (about 15 minutes on two cores) and
// rewrites the table between the markers.
var kindsTableFile = flag.String("kinds-table", "", "run the methods on the UAI-like model sets and write the table into this markdown file")

const (
	kindsBegin   = "<!-- kinds-table begin: written by go test ./stages/baselines -run TestKindsTable -timeout 40m -kinds-table FILE -->"
	kindsEnd     = "<!-- kinds-table end -->"
	kindsBudget  = 3.0 // max_seconds of every method
	kindsSEs     = 5   // pt's ln Z must lie within this many standard errors of exact
	kindsWorse   = 1.05
	kindsBoundEp = 1e-9 // relative slack of trw's bound (rounding)
)

var kindsMethods = []string{"pt", "trw", "dlgbp", "gbp", "renn-mp"}

// kindsSet is one directory of models: how to make it.
type kindsSet struct {
	name string
	make func(out string) error
}

func kindsSets() []kindsSet {
	factors := func(family string, size, count int, seed int64) func(string) error {
		return func(out string) error {
			p := samplemodel.FactorParams{Family: family, Size: size, Count: count, Seed: seed}
			if family == "potts" {
				p.Potts = samplemodel.PottsParams(size, nil, nil, nil)
			}
			return samplemodel.Factors(p, out)
		}
	}
	ising := func(p samplemodel.IsingParams) func(string) error {
		return func(out string) error { return samplemodel.Ising(p, out) }
	}
	return []kindsSet{
		{"data/uai (shipped)", func(out string) error {
			return samplemodel.UAI(samplemodel.UAIParams{In: filepath.Join("..", "..", "data", "uai")}, out)
		}},
		{"csp 60, seed 7", factors("csp", 60, 6, 7)},
		{"noisy-or 60, seed 5", factors("noisy-or", 60, 8, 5)},
		{"pedigree 60, seed 7", factors("pedigree", 60, 6, 7)},
		{"linkage 12, seed 7", factors("linkage", 12, 4, 7)},
		{"potts 60, seed 1", factors("potts", 60, 4, 1)},
		{"torus 10x10 U(-5,5), seed 22", ising(samplemodel.IsingParams{Graph: "torus", Size: 10, Couplings: "uniform:5", Fields: "uniform:1", Count: 6, Seed: 22})},
		{"grid 10x10 U(-10,10), seed 21", ising(samplemodel.IsingParams{Graph: "grid", Size: 10, Couplings: "uniform:10", Fields: "uniform:1", Count: 3, Seed: 21})},
		{"rbm 12+12 N(0,2²), seed 23", ising(samplemodel.IsingParams{Graph: "bipartite", Left: 12, Right: 12, Couplings: "normal:2", Fields: "uniform:1", Count: 3, Seed: 23})},
	}
}

func kindsHeader() string {
	return "| method | answers | finite ln Z | normalised marginals | budget held (largest s) | converged | converged: median / largest mean abs error | converged: largest ln Z error | method's claim held | UAI status lines honest |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n"
}

func TestKindsTable(t *testing.T) {
	path := *kindsTableFile
	if path == "" {
		path = filepath.Join("..", "..", "docs", "methods-on-uai-kinds.md")
	} else {
		writeKindsTable(t, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, kindsBegin), strings.Index(text, kindsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated table between %q and %q", path, kindsBegin, kindsEnd)
	}
	table := text[i:j]
	if !strings.Contains(table, kindsHeader()) {
		t.Errorf("%s: the table's header is not the generator's", path)
	}
	for _, name := range kindsMethods {
		if !strings.Contains(table, "\n| "+name+" |") {
			t.Errorf("%s: no row for %s", path, name)
		}
	}
}

// kindsAnswer is one method's answer on one model, as the stage wrote it.
type kindsAnswer struct {
	est            formats.EstimateRow
	dP, dLogZ, se  float64 // mean |ΔP| over variable entries, |Δ ln Z|, pt's ln Z standard error
	normalised     bool
	honest         bool   // the UAI files' status lines agree with the answer
	status, reason string // the MAR file's status line, and why it is not honest
}

// kindsModel is one model's exact answer and every method's.
type kindsModel struct {
	set, name string
	vars      int
	logZ      float64
	by        map[string]*kindsAnswer
}

func writeKindsTable(t *testing.T, path string) {
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(old)
	i, j := strings.Index(text, kindsBegin), strings.Index(text, kindsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no markers %q and %q to write the table between", path, kindsBegin, kindsEnd)
	}
	began := time.Now()
	var models []*kindsModel
	for k, s := range kindsSets() {
		ms := runKindsSet(t, filepath.Join(t.TempDir(), fmt.Sprint(k)), s)
		models = append(models, ms...)
		t.Logf("%s: %d models, %.0f s so far", s.name, len(ms), time.Since(began).Seconds())
	}
	var b strings.Builder
	b.WriteString(kindsBegin + "\n\n")
	fmt.Fprintf(&b, "Measured %s (%d cores, load average %s at the start, %s), %d models, every method with max_seconds %g and its other defaults, through run-baselines with --uai-out; %.0f s in all.\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), loadAverage(), runtime.Version(), len(models), kindsBudget, time.Since(began).Seconds())
	b.WriteString(kindsHeader())
	for _, name := range kindsMethods {
		b.WriteString(kindsRow(name, models))
	}
	b.WriteString("\n" + kindsClaims() + "\n\n")
	b.WriteString(kindsPerModel(models))
	b.WriteString("\n")
	out := text[:i] + b.String() + text[j:]
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadAverage is the 1-minute load average, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// runKindsSet makes set s in dir and runs exact-infer, build-regions (auto)
// and run-baselines on it.
func runKindsSet(t *testing.T, dir string, s kindsSet) []*kindsModel {
	ctx := context.Background()
	models, ex, regions, out, uai := filepath.Join(dir, "models"), filepath.Join(dir, "exact"), filepath.Join(dir, "regions"), filepath.Join(dir, "out"), filepath.Join(dir, "uai")
	if err := s.make(models); err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	if err := exactinfer.Run(ctx, exactinfer.Params{Models: models, Options: exact.DefaultOptions()}, ex, io.Discard); err != nil {
		t.Fatalf("%s: exact: %v", s.name, err)
	}
	if err := buildregions.Run(buildregions.Params{Models: models, Scheme: region.Auto}, regions, io.Discard); err != nil {
		t.Fatalf("%s: regions: %v", s.name, err)
	}
	p := Params{Models: models, Regions: regions, Methods: kindsMethods, Set: []string{fmt.Sprintf("max_seconds=%g", kindsBudget)}, UAIOut: uai}
	if err := Run(ctx, p, out, io.Discard); err != nil {
		t.Fatalf("%s: run-baselines: %v", s.name, err)
	}
	return readKindsSet(t, s.name, models, ex, out, uai)
}

func readKindsSet(t *testing.T, set, models, ex, out, uai string) []*kindsModel {
	info, _, err := formats.ReadModelInfo(filepath.Join(models, formats.ModelInfoFile))
	if err != nil {
		t.Fatal(err)
	}
	exEst, exMarg := readOutputsAt(t, ex)
	est, marg := readOutputsAt(t, out)
	se, _, err := formats.ReadStderrs(filepath.Join(out, formats.StderrsFile))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int32]*kindsModel{}
	var ms []*kindsModel
	for _, in := range info {
		m := &kindsModel{set: set, name: in.Name, vars: len(in.Cards), by: map[string]*kindsAnswer{}}
		byID[in.ModelID], ms = m, append(ms, m)
	}
	for _, e := range exEst {
		byID[e.ModelID].logZ = e.LogZ
	}
	exact := varMarginalsOf(exMarg, "exact")
	for _, e := range est {
		m := byID[e.ModelID]
		a := &kindsAnswer{est: e, dLogZ: math.Abs(e.LogZ - m.logZ), se: math.NaN()}
		mine := varMarginalsOf(marg, e.Method)[e.ModelID]
		a.dP, a.normalised = meanAbsDiff(exact[e.ModelID], mine)
		var cards []int
		for _, in := range info {
			if in.ModelID == e.ModelID {
				cards = toInts(in.Cards)
			}
		}
		a.status, a.honest, a.reason = uaiHonest(filepath.Join(uai, e.Method, strings.TrimSuffix(m.name, ".uai")+".uai"), cards, e)
		m.by[e.Method] = a
	}
	for _, r := range se {
		if r.Kind == formats.StderrLogZ && len(r.Stderr) == 1 {
			if a := byID[r.ModelID].by[r.Method]; a != nil {
				a.se = r.Stderr[0]
			}
		}
	}
	return ms
}

func toInts(xs []int32) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func readOutputsAt(t *testing.T, dir string) ([]formats.EstimateRow, []formats.MarginalRow) {
	est, _, err := formats.ReadEstimates(filepath.Join(dir, formats.EstimatesFile))
	if err != nil {
		t.Fatal(err)
	}
	marg, _, err := formats.ReadMarginals(filepath.Join(dir, formats.MarginalsFile))
	if err != nil {
		t.Fatal(err)
	}
	return est, marg
}

// varMarginalsOf returns method's variable marginals per model id.
func varMarginalsOf(rows []formats.MarginalRow, method string) map[int32]map[int32][]float64 {
	out := map[int32]map[int32][]float64{}
	for _, r := range rows {
		if r.Method != method || r.Kind != "var" {
			continue
		}
		if out[r.ModelID] == nil {
			out[r.ModelID] = map[int32][]float64{}
		}
		out[r.ModelID][r.Index] = r.Probs
	}
	return out
}

// meanAbsDiff is the mean |p - q| over every variable marginal entry, and
// whether every marginal of q is finite, non-negative and sums to 1 within
// 1e-6.
func meanAbsDiff(p, q map[int32][]float64) (float64, bool) {
	sum, n, ok := 0.0, 0, len(q) == len(p)
	for v, pv := range p {
		qv := q[v]
		if len(qv) != len(pv) {
			return math.NaN(), false
		}
		s := 0.0
		for x := range pv {
			sum += math.Abs(pv[x] - qv[x])
			n++
			s += qv[x]
			ok = ok && qv[x] >= 0 && !math.IsInf(qv[x], 0)
		}
		ok = ok && math.Abs(s-1) <= 1e-6
	}
	return sum / float64(n), ok
}

// uaiHonest reads the answer's UAI result files at base+".MAR" and ".PR"
// and says whether their status lines agree with what the files hold and
// what the method reported: "converged" only for a converged answer whose
// MAR is normalised and whose PR is finite, "NOT CONVERGED" only for an
// unconverged answer with such files, "FAILED CHECK" only for an
// unconverged one.
func uaiHonest(base string, cards []int, e formats.EstimateRow) (status string, honest bool, why string) {
	valid := true
	if mar, err := formats.ReadMARFile(base+".MAR", cards); err != nil {
		return "", false, err.Error()
	} else {
		for _, p := range mar {
			s := 0.0
			for _, x := range p {
				s += x
				valid = valid && x >= 0 && !math.IsInf(x, 0)
			}
			valid = valid && math.Abs(s-1) <= 1e-6
		}
	}
	files := []string{base + ".MAR"}
	if !math.IsNaN(e.LogZ) {
		files = append(files, base+".PR")
		z, err := formats.ReadPRFile(base + ".PR")
		if err != nil {
			return "", false, err.Error()
		}
		valid = valid && !math.IsInf(z, 0) && !math.IsNaN(z)
	}
	for _, f := range files {
		h, err := formats.ReadUAIResultHeader(f)
		if err != nil || len(h) == 0 {
			return "", false, fmt.Sprintf("%s: no status line (%v)", f, err)
		}
		line := h[0]
		if status == "" {
			status = line
		}
		switch {
		case strings.HasPrefix(line, "renn status: converged"):
			if !e.Converged || !valid {
				return status, false, fmt.Sprintf("%s says converged: converged %v, files valid %v", f, e.Converged, valid)
			}
		case strings.HasPrefix(line, "renn status: NOT CONVERGED"):
			if e.Converged || !valid {
				return status, false, fmt.Sprintf("%s says not converged: converged %v, files valid %v", f, e.Converged, valid)
			}
		case strings.HasPrefix(line, "renn status: FAILED CHECK"):
			if e.Converged {
				return status, false, fmt.Sprintf("%s says failed, but the answer is converged", f)
			}
		default:
			return status, false, fmt.Sprintf("%s: first line %q is no status line", f, line)
		}
	}
	return status, true, ""
}

// claim reports whether answer a of method on model m keeps the method's
// promise, and whether the promise applies: pt's ln Z within kindsSEs
// standard errors of exact, trw's ln Z at or above exact, renn-mp's mean
// error at most kindsWorse times GBP's where GBP converged.
func claim(method string, m *kindsModel, a *kindsAnswer) (applies, held bool) {
	switch method {
	case "pt":
		return true, a.dLogZ <= kindsSEs*a.se
	case "trw":
		return true, a.est.LogZ >= m.logZ-kindsBoundEp*max(1, math.Abs(m.logZ))
	case "renn-mp":
		g := m.by["gbp"]
		if g == nil || !g.est.Converged {
			return false, false
		}
		return true, a.dP <= kindsWorse*g.dP+1e-12
	}
	return false, false
}

func kindsClaims() string {
	return fmt.Sprintf("Claims: pt's ln Z within %d of its standard errors of exact (every model); trw's ln Z at or above exact (every model, up to %g relative rounding); "+
		"renn-mp's mean abs error of the variable marginals at most %gx GBP's on the models where GBP converged. gbp and dlgbp make no claim beyond their convergence flag. "+
		"Budget held: the run's in-process seconds at most %g x 1.1 + 1. Mean abs error: over every entry of every variable marginal, against exact-infer. "+
		"A status line is honest if \"converged\" heads only converged answers with normalised marginals and finite ln Z, \"NOT CONVERGED\" only unconverged ones with such files, and \"FAILED CHECK\" only unconverged ones.",
		kindsSEs, kindsBoundEp, kindsWorse, kindsBudget)
}

func kindsRow(method string, models []*kindsModel) string {
	var n, finite, norm, budget, conv, honest, applies, held int
	var worst, dLogZ float64
	var dPs []float64
	var failed []string
	for _, m := range models {
		a := m.by[method]
		if a == nil {
			continue
		}
		n++
		finite += b2i(!math.IsInf(a.est.LogZ, 0) && !math.IsNaN(a.est.LogZ))
		norm += b2i(a.normalised)
		budget += b2i(a.est.Seconds <= kindsBudget*1.1+1)
		worst = max(worst, a.est.Seconds)
		honest += b2i(a.honest)
		if a.est.Converged {
			conv++
			dPs = append(dPs, a.dP)
			dLogZ = max(dLogZ, a.dLogZ)
		}
		if ap, h := claim(method, m, a); ap {
			applies++
			held += b2i(h)
			if !h {
				failed = append(failed, m.name)
			}
		}
	}
	sort.Float64s(dPs)
	convErr, claimText := "—", "no claim"
	if len(dPs) > 0 {
		convErr = fmt.Sprintf("%.2g / %.2g", dPs[len(dPs)/2], dPs[len(dPs)-1])
	}
	if applies > 0 {
		claimText = fmt.Sprintf("%d of %d", held, applies)
		if len(failed) > 0 {
			claimText += " (not on " + strings.Join(failed, ", ") + ")"
		}
	}
	lz := "—"
	if conv > 0 {
		lz = fmt.Sprintf("%.2g", dLogZ)
	}
	return fmt.Sprintf("| %s | %d | %d | %d | %d (%.2f) | %d | %s | %s | %s | %d |\n", method, n, finite, norm, budget, worst, conv, convErr, lz, claimText, honest)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kindsPerModel is the table of every model: each method's mean abs error,
// ln Z error and seconds, with c for converged.
func kindsPerModel(models []*kindsModel) string {
	var b strings.Builder
	b.WriteString("Per model: mean abs error of the variable marginals / |Δ ln Z| / seconds, with c where the method reported converged (pt: ln Z standard error in brackets).\n\n")
	b.WriteString("| set | model | variables | " + strings.Join(kindsMethods, " | ") + " |\n|---|---|---:|" + strings.Repeat("---|", len(kindsMethods)) + "\n")
	for _, m := range models {
		cells := []string{m.set, m.name, fmt.Sprint(m.vars)}
		for _, name := range kindsMethods {
			a := m.by[name]
			if a == nil {
				cells = append(cells, "failed")
				continue
			}
			c := fmt.Sprintf("%.2g / %.2g / %.1f", a.dP, a.dLogZ, a.est.Seconds)
			if name == "pt" {
				c += fmt.Sprintf(" [%.2g]", a.se)
			}
			if a.est.Converged {
				c += " c"
			}
			if !a.honest {
				c += " (status line: " + a.reason + ")"
			}
			cells = append(cells, c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}
