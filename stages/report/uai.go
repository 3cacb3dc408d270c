package report

// The "Beyond the paper: UAI models" section: every method on small models
// of the kinds of the UAI inference competitions (data/uai/), model by
// model, from the score stages named uai_* of the config and the estimates
// those stages scored. It shares its reading with the hard-models section
// (readScoreSection).

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/score"
)

// UAIPrefix begins the name of every stage of the UAI-models section; the
// section reads the score stages among them.
const UAIPrefix = "uai_"

// UAIAnchor is the Markdown anchor of the section.
const UAIAnchor = "beyond-the-paper-uai-models"

// uaiModel is one model with every column's run on it.
type uaiModel struct {
	name    string
	m       *hardModel          // the first score instance's reading of it
	runs    map[string]*hardRun // by column
	regions map[string]string   // by column: the region scheme the run used, from its params
}

// uaiData is what the section shows.
type uaiData struct {
	sec     *scoreSection
	columns []string // methods, "gbp (bethe)" for a run on regions of a scheme other than auto
	models  []*uaiModel
	// checked says whether any estimate records the shared check (a
	// "check" key in its params).
	checked bool
}

// readUAI reads the uai_* score stages of plan (see readScoreSection).
func readUAI(plan *pipeline.Plan, binDir string) (*uaiData, error) {
	sec, err := readScoreSection(plan, UAIPrefix, binDir)
	if err != nil {
		return nil, err
	}
	d := &uaiData{sec: sec}
	byName := map[string]*uaiModel{}
	var plain, other []string // columns without and with a scheme
	for _, sc := range sec.scored {
		for _, sm := range sc.models {
			hm := sm.model
			um := byName[hm.name]
			if um == nil {
				um = &uaiModel{name: hm.name, m: hm, runs: map[string]*hardRun{}, regions: map[string]string{}}
				byName[hm.name] = um
				d.models = append(d.models, um)
			}
			if hm.exact && !um.m.exact {
				um.m = hm
			}
			for method, run := range hm.runs {
				if run.est == nil && len(run.metrics) == 0 {
					continue
				}
				col := method
				s := requestedScheme(run.pred)
				if s != "" && s != "auto" {
					col = method + " (" + s + ")"
				}
				if prev := um.runs[col]; prev != nil && prev.pred != run.pred {
					// Two score stages scored the method alike: keep both.
					col += " [" + sc.inst.Stage.Name + "]"
				}
				switch {
				case slices.Contains(plain, col) || slices.Contains(other, col):
				case col == method:
					plain = append(plain, col)
				default:
					other = append(other, col)
				}
				um.runs[col] = run
				if run.est != nil {
					p := parseParams(run.est.Params)
					um.regions[col] = p.Regions
					d.checked = d.checked || p.hasCheck
				}
			}
		}
	}
	sortMethods(plain)
	slices.Sort(other)
	d.columns = append(plain, other...)
	return d, nil
}

// requestedScheme is the --scheme flag of the build-regions stage whose
// output the instance read as its regions, or "".
func requestedScheme(inst *pipeline.Instance) string {
	if inst == nil {
		return ""
	}
	for _, in := range inst.Inputs {
		if in.Flag != "regions" || in.From == nil {
			continue
		}
		for _, f := range in.From.Stage.Flags {
			if f.Name == "scheme" {
				return f.Value
			}
		}
		return ""
	}
	return ""
}

// estimateParams is what the section reads of an estimate's params JSON.
type estimateParams struct {
	Regions  string // the region scheme the run used (what auto picked)
	Check    string // why the shared check failed; "" when it passed
	hasCheck bool   // the params record the shared check
}

func parseParams(js string) estimateParams {
	var raw map[string]json.RawMessage
	var p estimateParams
	if json.Unmarshal([]byte(js), &raw) != nil {
		return p
	}
	json.Unmarshal(raw["regions"], &p.Regions)
	if c, ok := raw["check"]; ok {
		p.hasCheck = true
		json.Unmarshal(c, &p.Check) // a non-string check is not a reason
	}
	return p
}

// checkFailed says whether the run's shared check failed.
func checkFailed(r *hardRun) bool {
	return r != nil && r.est != nil && parseParams(r.est.Params).Check != ""
}

// describe summarises a model's shape from its factors (mrf.ShapeOf).
func describe(m *hardModel) (states string, arity, zeros, observed int) {
	model, _ := modelOf(m.info.Cards, m.factors, nil, nil)
	sh := mrf.ShapeOf(model)
	states = strconv.Itoa(sh.MaxCard)
	if sh.MinCard != sh.MaxCard {
		states = fmt.Sprintf("%d-%d", sh.MinCard, sh.MaxCard)
	}
	return states, sh.MaxArity, sh.Zeros, sh.Observed
}

// markdown writes the section.
func (d *uaiData) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("<a id=\"%s\"></a>\n\n## Beyond the paper: UAI models\n\n", UAIAnchor)
	if d == nil || len(d.sec.stages) == 0 {
		w("Not run: the config has no %s* score stages.\n\n", UAIPrefix)
		return b.String()
	}
	w("Small models of the kinds of the UAI 2014 inference competition, generated and shipped in `data/uai/` (its README says what each is and the commands that made it): spin-glass grids and a torus, an RBM, soft CSPs with 4 states and ternary factors, noisy-OR networks and pedigrees with 3 states, arity-4 factors, zero potentials and evidence. ")
	w("From stages %s and the stages they score: every method against exact inference, model by model, on the region graph `build-regions --scheme auto` picks, and gbp once more on Bethe regions (the column \"gbp (bethe)\").\n\n", quoteJoin(d.sec.stages))
	if len(d.sec.notRun) > 0 {
		w("Not run yet: %s.\n\n", strings.Join(truncate(d.sec.notRun, 12), ", "))
	}
	w("%s\n", sectionRunTime(d.sec.rt, d.sec.statusErr, UAIPrefix))
	if len(d.models) == 0 {
		w("No model has been scored yet.\n\n")
		return b.String()
	}
	w("%s\n", d.modelTable())
	w("%s\n", d.accuracyTable())
	if c := d.gbpCheck(); c != "" {
		w("%s\n", c)
	}
	return b.String()
}

func (d *uaiData) header(first ...string) string { return tableHeader(first, d.columns) }

func (d *uaiData) modelTable() string {
	var b strings.Builder
	b.WriteString("### The models\n\n")
	b.WriteString("| model | variables | states | factors | largest arity | zero entries | observed | exact ln Z | auto regions |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, um := range d.models {
		m := um.m
		states, arity, zeros, observed := describe(m)
		lnZ := "—"
		if m.exact {
			lnZ = significant(-m.negLogZ, 6)
		}
		auto := "—"
		for _, col := range d.columns {
			if s := um.regions[col]; s != "" && !strings.Contains(col, " (") {
				auto = s
				break
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %d | %d | %d | %s | %s |\n", um.name, len(m.info.Cards), states, len(m.factors)-observed, arity, zeros, observed, lnZ, auto)
	}
	b.WriteString("\nfactors, largest arity and zero entries count the model's own factors; observed: variables fixed by its evidence file (each a unary factor, 1 at the observed state). auto regions: the scheme `build-regions --scheme auto` chose, as the methods record it.\n")
	return b.String()
}

func (d *uaiData) accuracyTable() string {
	var b strings.Builder
	b.WriteString("### Accuracy, time and convergence\n\n")
	b.WriteString(d.header("metric", "model"))
	for _, row := range hardRows {
		for k, um := range d.models {
			label := ""
			if k == 0 {
				label = row.label
			}
			d.metricRow(&b, label, um.name, row.metric, row.metric == score.Converged, func(col string) (float64, bool) {
				r := um.runs[col]
				if r == nil {
					return 0, false
				}
				v, ok := r.metrics[row.metric]
				return v, ok
			})
		}
		d.metricRow(&b, "", "**all models**", row.metric, false, func(col string) (float64, bool) { return d.overall(col, row.metric, row.largest) })
	}
	if d.checked {
		for k, um := range d.models {
			label := ""
			if k == 0 {
				label = "shared check failed"
			}
			fmt.Fprintf(&b, "| %s | %s |", label, um.name)
			for _, col := range d.columns {
				r := um.runs[col]
				switch {
				case r == nil || r.est == nil:
					b.WriteString(" — |")
				case checkFailed(r):
					b.WriteString(" **yes** |")
				default:
					b.WriteString(" no |")
				}
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "| | **all models** |")
		for _, col := range d.columns {
			n, k := 0, 0
			for _, um := range d.models {
				if r := um.runs[col]; r != nil && r.est != nil {
					n++
					if checkFailed(r) {
						k++
					}
				}
			}
			fmt.Fprintf(&b, " %d of %d |", k, n)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nmean |ΔP(x_i)|: the mean over the variables of |b(x_i) − p(x_i)| (observed variables included); max |ΔP(x_i)|: the largest over the variables; ln Z error: |ln Z − ln Ẑ|; seconds: one core, on a shared machine; converged: whether the run reported `converged`. ")
	b.WriteString("all models: the mean over the models, the largest for max |ΔP(x_i)|, the fraction for converged. **Bold**: the lowest error of the row. A run that did not converge is scored at its last iterate.")
	if d.checked {
		b.WriteString(" shared check failed: the run's answer failed the check every method's result goes through (finite ln Z, normalised marginals, no mass on a state evidence or a zero potential excludes, consistent region beliefs), so it cannot carry `converged`.")
	} else {
		b.WriteString(" The estimates record no shared check (no `check` in their params), so no row counts its failures.")
	}
	b.WriteString("\n")
	return b.String()
}

// metricRow writes one row of the accuracy table, the lowest error bold.
// With yesNo a value shows as yes (1) or no (0).
func (d *uaiData) metricRow(b *strings.Builder, label, model, metric string, yesNo bool, value func(col string) (float64, bool)) {
	vals := make([]float64, len(d.columns))
	ok := make([]bool, len(d.columns))
	bold := -1
	for j, col := range d.columns {
		vals[j], ok[j] = value(col)
		if ok[j] && !math.IsNaN(vals[j]) && (metric == metrics.VarMeanAbs || metric == metrics.VarMaxAbs || metric == metrics.LogZErr) &&
			(bold < 0 || vals[j] < vals[bold]) {
			bold = j
		}
	}
	fmt.Fprintf(b, "| %s | %s |", label, model)
	for j := range vals {
		switch {
		case !ok[j]:
			b.WriteString(" — |")
		case yesNo && vals[j] == 1:
			b.WriteString(" yes |")
		case yesNo && vals[j] == 0:
			b.WriteString(" no |")
		case j == bold:
			b.WriteString(" **" + uaiNumber(metric, vals[j]) + "** |")
		default:
			b.WriteString(" " + uaiNumber(metric, vals[j]) + " |")
		}
	}
	b.WriteString("\n")
}

// uaiNumber is hardNumber with small ln Z errors in e-notation too.
func uaiNumber(metric string, v float64) string {
	if metric == metrics.LogZErr && v != 0 && math.Abs(v) < 0.01 && !math.IsNaN(v) {
		return strconv.FormatFloat(v, 'e', 1, 64)
	}
	return hardNumber(metric, v)
}

// overall is the mean of a column's metric over the models, or with largest
// its largest value; ok is false when the column has no value.
func (d *uaiData) overall(col, metric string, largest bool) (float64, bool) {
	s := &hardSetting{}
	for _, um := range d.models {
		if r := um.runs[col]; r != nil {
			s.models = append(s.models, &hardModel{runs: map[string]*hardRun{col: r}})
		}
	}
	return s.stat(col, metric, largest)
}

// gbpCheck measures the claim of issue 20 on auto regions: gbp's mean
// |ΔP(x_i)| within 2 × that of gbp on Bethe regions, and at most 10 s, on
// every model.
func (d *uaiData) gbpCheck() string {
	const auto, bethe = "gbp", "gbp (bethe)"
	if !slices.Contains(d.columns, auto) || !slices.Contains(d.columns, bethe) {
		return ""
	}
	var acc, fast, n int
	var fails, slow []string
	for _, um := range d.models {
		a, b := um.runs[auto], um.runs[bethe]
		if a == nil || b == nil {
			continue
		}
		ea, oka := a.metrics[metrics.VarMeanAbs]
		eb, okb := b.metrics[metrics.VarMeanAbs]
		if !oka || !okb {
			continue
		}
		n++
		if ea <= 2*eb {
			acc++
		} else {
			fails = append(fails, fmt.Sprintf("%s (%s against %s)", um.name, hardNumber(metrics.VarMeanAbs, ea), hardNumber(metrics.VarMeanAbs, eb)))
		}
		if t, ok := a.metrics[score.Seconds]; ok && t <= 10 {
			fast++
		} else {
			slow = append(slow, fmt.Sprintf("%s (%s s)", um.name, formatNumber(score.Seconds, t)))
		}
	}
	var b strings.Builder
	b.WriteString("### gbp on auto regions against the targets of issue 20\n\n")
	fmt.Fprintf(&b, "- mean |ΔP(x_i)| at most 2 × that of gbp on Bethe regions: holds on %d of %d models", acc, n)
	if len(fails) > 0 {
		b.WriteString("; not on " + strings.Join(fails, "; "))
	}
	fmt.Fprintf(&b, ".\n- at most 10 s: holds on %d of %d models", fast, n)
	if len(slow) > 0 {
		b.WriteString("; not on " + strings.Join(slow, "; "))
	}
	b.WriteString(".\n")
	return b.String()
}
