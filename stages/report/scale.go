package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
)

// ScaleParams are the parameters of the cost-against-size table
// (README, "Performance"), read from a pipeline such as pipeline.scale.toml:
// one model per size, each method in a stage of its own so that the
// stamp's peak memory is that method's.
type ScaleParams struct {
	Config string // the pipeline config whose stages ran the methods
	// Reference is the method whose variable marginals the Compare methods
	// are measured against (mean |ΔP(x_i)|); "" compares nothing.
	Reference string
	Compare   []string
	// MinFitN is the fewest variables of a setting that enters the fitted
	// growth exponents (smaller ones are dominated by fixed costs).
	MinFitN int
	// Short maps a method to the name of its short run (the same method on
	// the same models stopped after a few steps, e.g. train-renn
	// --max-steps 50 --name renn-mp-short). The short run is not a column
	// of its own: the difference of the two processes' CPU times, divided
	// by the difference of their steps, is the method's CPU seconds per
	// step without what it does before its first step.
	Short map[string]string
	// Command is how the table was made, printed under it.
	Command string
}

// DefaultScaleParams compares renn-mp with GBP, fits the exponents over
// grids of 20x20 and larger, and reads renn-mp's short run as renn-mp-short
// (pipeline.scale.toml's stage renn_short).
func DefaultScaleParams(config string) ScaleParams {
	return ScaleParams{Config: config, Reference: "gbp", Compare: []string{"renn-mp"}, MinFitN: 400,
		Short: map[string]string{"renn-mp": "renn-mp-short"}}
}

// scaleCell is one method on the models of one setting: the means over its
// models of what estimates.parquet says, and what the stamps of the
// instances that ran it say of their processes.
type scaleCell struct {
	models     int
	seconds    float64 // summed over the models, as estimates.parquet times them
	iterations float64 // summed
	converged  int     // models converged
	wall, cpu  float64 // summed over the instances' processes (stamps)
	rssKiB     int64   // the largest peak RSS of those processes; 0 unknown
	noUsage    bool    // some instance's stamp did not record its usage
	shared     bool    // some instance ran other methods as well
	instances  map[string]bool
	marginals  []string // the marginals.parquet files holding its models
	// short is the same method's short run on the same models (see
	// ScaleParams.Short), nil if none.
	short *scaleCell
}

func (c *scaleCell) meanSeconds() float64 { return c.seconds / float64(c.models) }
func (c *scaleCell) meanIters() float64   { return c.iterations / float64(c.models) }

// perIteration is seconds per iteration (or step), NaN without iterations.
func (c *scaleCell) perIteration() float64 {
	if c.iterations <= 0 {
		return math.NaN()
	}
	return c.seconds / c.iterations
}

func (c *scaleCell) rssMiB() float64 {
	if c.rssKiB <= 0 || c.noUsage {
		return math.NaN()
	}
	return float64(c.rssKiB) / 1024
}

func (c *scaleCell) cpuSeconds() float64 {
	if c.noUsage {
		return math.NaN()
	}
	return c.cpu
}

// cpuPerModel is the CPU seconds of its processes per model.
func (c *scaleCell) cpuPerModel() float64 { return c.cpuSeconds() / float64(c.models) }

// cpuPerIteration is the CPU seconds of the whole process per iteration:
// loading, setting up and writing included.
func (c *scaleCell) cpuPerIteration() float64 {
	if c.iterations <= 0 {
		return math.NaN()
	}
	return c.cpuPerModel() / c.meanIters()
}

// minStepShare is the smallest share of a process's CPU seconds that the
// difference of a full and a short run must reach to be told from the
// noise between two runs (a few percent on a busy machine).
const minStepShare = 0.1

// cpuPerStep is the CPU seconds per step between the end of the short
// run and the end of the full one; NaN without a short run that took
// fewer steps, or when the difference is under minStepShare of the full
// run's CPU seconds.
func (c *scaleCell) cpuPerStep() float64 {
	if c.short == nil || c.meanIters() <= c.short.meanIters() {
		return math.NaN()
	}
	diff := c.cpuPerModel() - c.short.cpuPerModel()
	if diff < minStepShare*c.cpuPerModel() {
		return math.NaN()
	}
	return diff / (c.meanIters() - c.short.meanIters())
}

// cpuBeforeSteps is the CPU seconds of the process besides its steps:
// loading the inputs, setting the run up, writing the outputs.
func (c *scaleCell) cpuBeforeSteps() float64 {
	return c.cpuPerModel() - c.meanIters()*c.cpuPerStep()
}

// scaleData is everything the table needs.
type scaleData struct {
	settings []setting
	methods  []string
	cells    map[setting]map[string]*scaleCell
	// delta[s][m] is the mean and largest |ΔP(x_i)| of method m against
	// the reference on setting s, over all its models' variables.
	delta     map[setting]map[string][2]float64
	instances int // instances of the plan that write estimates
	done      int // of those, completed (stamped)
	gammas    map[float64]bool
}

// readScale reads the estimates, stamps and models of every completed
// instance of the plan that wrote estimates.parquet.
func readScale(plan *pipeline.Plan, p ScaleParams) (*scaleData, error) {
	d := &scaleData{cells: map[setting]map[string]*scaleCell{}, delta: map[setting]map[string][2]float64{}, gammas: map[float64]bool{}}
	settingsOf := map[string]map[int32]setting{}
	for _, inst := range plan.Instances {
		if !writesEstimates(inst) {
			continue
		}
		d.instances++
		stamp, err := pipeline.ReadStamp(inst.OutDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		path := filepath.Join(inst.OutDir, formats.EstimatesFile)
		rows, _, err := formats.ReadEstimates(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a stage of another kind (sample-model, score...)
		}
		if err != nil {
			return nil, err
		}
		d.done++
		var modelsDir string
		for _, in := range inst.Inputs {
			if in.Flag == "models" {
				modelsDir = in.From.OutDir
			}
		}
		if modelsDir == "" {
			return nil, fmt.Errorf("stage %s: no models input, so its models' sizes are unknown", inst.ID)
		}
		settings, ok := settingsOf[modelsDir]
		if !ok {
			if settings, err = readSettings(modelsDir); err != nil {
				return nil, err
			}
			settingsOf[modelsDir] = settings
		}
		var instMethods []string
		for _, r := range rows {
			if !slices.Contains(instMethods, r.Method) {
				instMethods = append(instMethods, r.Method)
			}
		}
		for _, r := range rows {
			s, ok := settings[r.ModelID]
			if !ok {
				return nil, fmt.Errorf("%s: model %d is not in %s", path, r.ModelID, filepath.Join(modelsDir, formats.ModelInfoFile))
			}
			d.gammas[s.gamma] = true
			if d.cells[s] == nil {
				d.cells[s] = map[string]*scaleCell{}
				d.settings = append(d.settings, s)
			}
			c := d.cells[s][r.Method]
			if c == nil {
				c = &scaleCell{instances: map[string]bool{}}
				d.cells[s][r.Method] = c
				if !slices.Contains(d.methods, r.Method) && !isShort(p, r.Method) {
					d.methods = append(d.methods, r.Method)
				}
			}
			c.models++
			c.seconds += r.Seconds
			c.iterations += float64(r.Iterations)
			if r.Converged {
				c.converged++
			}
			if !c.instances[inst.ID] {
				c.instances[inst.ID] = true
				c.wall += stamp.Seconds
				c.cpu += stamp.CPUSeconds
				c.rssKiB = max(c.rssKiB, stamp.MaxRSSKiB)
				c.noUsage = c.noUsage || stamp.MaxRSSKiB <= 0
				c.shared = c.shared || len(instMethods) > 1
				c.marginals = append(c.marginals, filepath.Join(inst.OutDir, formats.MarginalsFile))
			}
		}
	}
	slices.SortFunc(d.settings, func(a, b setting) int {
		switch {
		case a.less(b):
			return -1
		case b.less(a):
			return 1
		}
		return 0
	})
	slices.SortFunc(d.methods, methods.Compare)
	for _, s := range d.settings {
		for m, short := range p.Short {
			if c := d.cells[s][m]; c != nil {
				c.short = d.cells[s][short]
			}
		}
	}
	if p.Reference != "" {
		for _, s := range d.settings {
			ref := d.cells[s][p.Reference]
			if ref == nil {
				continue
			}
			for _, m := range p.Compare {
				c := d.cells[s][m]
				if c == nil {
					continue
				}
				mean, maxAbs, err := varDelta(ref.marginals, p.Reference, c.marginals, m)
				if err != nil {
					return nil, err
				}
				if d.delta[s] == nil {
					d.delta[s] = map[string][2]float64{}
				}
				d.delta[s][m] = [2]float64{mean, maxAbs}
			}
		}
	}
	return d, nil
}

func isShort(p ScaleParams, method string) bool {
	for _, s := range p.Short {
		if s == method {
			return true
		}
	}
	return false
}

// writesEstimates says whether inst runs a binary that writes
// estimates.parquet (run-baselines, train-renn, exact-infer).
func writesEstimates(inst *pipeline.Instance) bool {
	if len(inst.Stage.Run) == 0 {
		return false
	}
	switch inst.Stage.Run[0] {
	case "run-baselines", "train-renn", "exact-infer":
		return true
	}
	return false
}

type varKey struct {
	model int32
	index int32
}

// readVarMarginals reads the variable marginals of method from files.
func readVarMarginals(files []string, method string) (map[varKey][]float64, error) {
	out := map[varKey][]float64{}
	for _, f := range files {
		rows, _, err := formats.ReadMarginals(f)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.Kind == "var" && r.Method == method {
				out[varKey{r.ModelID, r.Index}] = r.Probs
			}
		}
	}
	return out, nil
}

// varDelta is the mean and the largest |p - q| over every entry of every
// variable marginal of method a (in files fa) against b (in fb), over the
// variables of the models both have; for binary variables the mean is the
// mean |ΔP(x_i = +1)|.
func varDelta(fa []string, a string, fb []string, b string) (mean, maxAbs float64, err error) {
	pa, err := readVarMarginals(fa, a)
	if err != nil {
		return 0, 0, err
	}
	pb, err := readVarMarginals(fb, b)
	if err != nil {
		return 0, 0, err
	}
	sum, n := 0.0, 0
	for k, p := range pa {
		q, ok := pb[k]
		if !ok {
			continue
		}
		if len(p) != len(q) {
			return 0, 0, fmt.Errorf("model %d variable %d: %s has %d states, %s %d", k.model, k.index, a, len(p), b, len(q))
		}
		for i := range p {
			v := math.Abs(p[i] - q[i])
			sum += v
			maxAbs = math.Max(maxAbs, v)
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), nil
	}
	return sum / float64(n), maxAbs, nil
}

// fitExponent is the least-squares slope of log y against log n over the
// points with n >= minN and a finite positive y; NaN with fewer than two.
func fitExponent(n, y []float64, minN float64) float64 {
	var xs, ys []float64
	for i := range n {
		if n[i] >= minN && y[i] > 0 && !math.IsInf(y[i], 0) && !math.IsNaN(y[i]) {
			xs = append(xs, math.Log(n[i]))
			ys = append(ys, math.Log(y[i]))
		}
	}
	if len(xs) < 2 {
		return math.NaN()
	}
	mx, my := 0.0, 0.0
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(ys))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return math.NaN()
	}
	return sxy / sxx
}

// settingLabel names a setting in the table: the side of a square grid
// or torus (300x300), else the number of variables.
// The graph is left out when every setting has the same one (the header
// names it then).
func (d *scaleData) settingLabel(s setting) string {
	label := fmt.Sprintf("n=%d", s.size)
	if s.graph == "grid" || s.graph == "torus" {
		if l := int(math.Round(math.Sqrt(float64(s.size)))); l*l == s.size {
			label = fmt.Sprintf("%dx%d", l, l)
		}
	}
	if d.oneGraph() == "" {
		label = s.graph + " " + label
	}
	if len(d.gammas) > 1 {
		label += " γ=" + strconv.FormatFloat(s.gamma, 'g', -1, 64)
	}
	return label
}

// hasShort says whether some setting has a short run of method m.
func (d *scaleData) hasShort(m string) bool {
	for _, s := range d.settings {
		if c := d.cells[s][m]; c != nil && c.short != nil {
			return true
		}
	}
	return false
}

// shortSteps lists the steps of m's short runs ("50", or "20-50").
func (d *scaleData) shortSteps(m string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range d.settings {
		if c := d.cells[s][m]; c != nil && c.short != nil {
			lo, hi = math.Min(lo, c.short.meanIters()), math.Max(hi, c.short.meanIters())
		}
	}
	if lo == hi {
		return strconv.FormatFloat(lo, 'f', -1, 64)
	}
	return strconv.FormatFloat(lo, 'f', -1, 64) + "-" + strconv.FormatFloat(hi, 'f', -1, 64)
}

// oneGraph is the graph of every setting if they share one, else "".
func (d *scaleData) oneGraph() string {
	for _, s := range d.settings {
		if s.graph != d.settings[0].graph {
			return ""
		}
	}
	return d.settings[0].graph
}

// isNetwork says whether a method counts optimisation steps rather than
// sweeps.
func isNetwork(m string) bool {
	return strings.HasPrefix(m, "renn") || strings.HasPrefix(m, "infnet")
}

func iterName(m string) string {
	if isNetwork(m) {
		return "steps"
	}
	return "iters"
}

// fmtSig writes a positive quantity with three significant digits, without
// an exponent from 0.001 up; "—" for NaN.
func fmtSig(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case x == 0:
		return "0"
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case math.Abs(x) >= 0.001:
		digits := 2 - int(math.Floor(math.Log10(math.Abs(x))))
		return strconv.FormatFloat(x, 'f', max(digits, 0), 64)
	}
	return strconv.FormatFloat(x, 'e', 2, 64)
}

func fmtExp(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func fmtDelta(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'e', 1, 64)
}

func fmtConverged(c *scaleCell) string {
	switch {
	case c.models == 1 && c.converged == 1:
		return "yes"
	case c.models == 1:
		return "no"
	}
	return fmt.Sprintf("%d/%d", c.converged, c.models)
}

// ScaleTable reads the outputs of the pipeline p.Config and returns the
// cost-against-size tables in Markdown.
func ScaleTable(p ScaleParams) (string, error) {
	plan, err := pipeline.Load(p.Config)
	if err != nil {
		return "", err
	}
	d, err := readScale(plan, p)
	if err != nil {
		return "", err
	}
	if len(d.settings) == 0 {
		return "", fmt.Errorf("%s: no stage instance with estimates.parquet has completed (%d to run): run the pipeline first", p.Config, d.instances)
	}
	return d.markdown(p), nil
}

// scaleColumn is one numeric column of a method: its header, its value on a
// cell, and whether a growth exponent is fitted to it.
type scaleColumn struct {
	header string
	value  func(c *scaleCell) float64
	text   func(c *scaleCell) string // overrides value's formatting
	fit    bool
}

func (d *scaleData) markdown(p ScaleParams) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	minN := float64(p.MinFitN)
	var fitted []string
	for _, s := range d.settings {
		if float64(s.size) >= minN {
			fitted = append(fitted, d.settingLabel(s))
		}
	}
	fitLabel := "exponent"
	if len(fitted) > 0 {
		fitLabel = fmt.Sprintf("exponent (%s to %s)", fitted[0], fitted[len(fitted)-1])
	}

	// The main table: what each method's estimates say, and its peak memory.
	mainCols := func(m string) []scaleColumn {
		return []scaleColumn{
			{header: m + " s", value: (*scaleCell).meanSeconds, fit: true},
			{header: iterName(m), value: (*scaleCell).meanIters, text: func(c *scaleCell) string {
				return strconv.FormatFloat(c.meanIters(), 'f', -1, 64)
			}},
			{header: "s/" + strings.TrimSuffix(iterName(m), "s"), value: (*scaleCell).perIteration, fit: true},
			{header: "MiB", value: (*scaleCell).rssMiB, text: func(c *scaleCell) string {
				if x := c.rssMiB(); !math.IsNaN(x) {
					return strconv.FormatFloat(x, 'f', 0, 64)
				}
				return "—"
			}, fit: true},
			{header: "conv", text: fmtConverged},
		}
	}
	process := func(m string) []scaleColumn {
		cols := []scaleColumn{
			{header: m + " wall s", value: func(c *scaleCell) float64 { return c.wall / float64(len(c.instances)) }, fit: true},
			{header: "CPU s", value: func(c *scaleCell) float64 { return c.cpuSeconds() / float64(len(c.instances)) }, fit: true},
			{header: "CPU s/" + strings.TrimSuffix(iterName(m), "s"), value: (*scaleCell).cpuPerIteration, fit: true},
		}
		if d.hasShort(m) {
			cols = append(cols,
				scaleColumn{header: "CPU s/step, steps only", value: (*scaleCell).cpuPerStep, fit: true},
				scaleColumn{header: "CPU s besides steps", value: (*scaleCell).cpuBeforeSteps, fit: true})
		}
		return cols
	}
	var compared []string
	for _, m := range p.Compare {
		for _, s := range d.settings {
			if _, ok := d.delta[s][m]; ok {
				compared = append(compared, m)
				break
			}
		}
	}
	table := func(cols func(string) []scaleColumn, withDelta bool) {
		header := d.oneGraph()
		if header == "" {
			header = "model"
		}
		w("| %s | N |", header)
		sep := "|---|---:|"
		for _, m := range d.methods {
			for _, c := range cols(m) {
				w(" %s |", c.header)
				sep += "---:|"
			}
		}
		if withDelta {
			for _, m := range compared {
				w(" %s − %s mean \\|ΔP\\| (max) |", m, p.Reference)
				sep += "---:|"
			}
		}
		w("\n%s\n", sep)
		ns := map[string][]float64{}
		ys := map[string][]float64{}
		for _, s := range d.settings {
			w("| %s | %d |", d.settingLabel(s), s.size)
			for _, m := range d.methods {
				for k, col := range cols(m) {
					c := d.cells[s][m]
					if c == nil {
						w(" |")
						continue
					}
					switch {
					case col.text != nil:
						w(" %s |", col.text(c))
					default:
						w(" %s |", fmtSig(col.value(c)))
					}
					if col.fit {
						key := m + "/" + strconv.Itoa(k)
						ns[key] = append(ns[key], float64(s.size))
						ys[key] = append(ys[key], col.value(c))
					}
				}
			}
			if withDelta {
				for _, m := range compared {
					dl, ok := d.delta[s][m]
					if !ok {
						w(" |")
						continue
					}
					w(" %s (%s) |", fmtDelta(dl[0]), fmtDelta(dl[1]))
				}
			}
			w("\n")
		}
		w("| %s | |", fitLabel)
		for _, m := range d.methods {
			for k, col := range cols(m) {
				if !col.fit {
					w(" |")
					continue
				}
				key := m + "/" + strconv.Itoa(k)
				w(" %s |", fmtExp(fitExponent(ns[key], ys[key], minN)))
			}
		}
		if withDelta {
			for range compared {
				w(" |")
			}
		}
		w("\n")
	}

	table(mainCols, true)
	w("\n")
	w("Per method: seconds of the inference (`seconds` of estimates.parquet: the method's run, without reading and writing files), its iterations (sweeps; for RENN optimisation steps), seconds per iteration, ")
	w("the peak resident memory of the stage's process (MiB, `max_rss_kib` of its stamp: the whole process, with the model, the region graph and the outputs), and whether it converged. ")
	w("The last row is the least-squares slope of log(value) against log N over the %d settings from %s on (those where the column has a value): cost grows like N^slope.", len(fitted), strings.Join(firstLast(fitted), " to "))
	if len(compared) > 0 {
		w(" The last column compares the variable marginals of %s with %s's (mean and largest |ΔP(x_i)| over every variable).", strings.Join(compared, ", "), p.Reference)
	}
	for _, m := range d.methods {
		if isNetwork(m) {
			w(" Seconds per step of %s include what the run does besides its steps (for renn-mp, the message passing that makes its input); below, its steps alone.", m)
			break
		}
	}
	w("\n\nThe whole stage process, from the stamps: wall and CPU seconds (user + system) from start to exit, loading and writing included, and CPU seconds per iteration")
	for _, m := range d.methods {
		if d.hasShort(m) {
			w("; for %s, its CPU seconds split into its steps and the rest (loading, setting up, writing) by a second, short run of the same model (%s, stopped after %s steps): CPU s/step = (CPU s − CPU s of the short run) / (steps − steps of the short run), \"—\" where that difference is under %.0f%% of the CPU seconds, too little to tell from the noise between two runs",
				m, p.Short[m], d.shortSteps(m), 100*minStepShare)
		}
	}
	w(". CPU seconds do not count the time the process waited for a core, so they are what the process costs, however busy the machine:\n\n")
	table(process, false)
	var notes []string
	if d.done < d.instances {
		notes = append(notes, fmt.Sprintf("**Partial:** %d of %d inference instances have completed; rerun the pipeline for the rest.", d.done, d.instances))
	}
	for _, m := range d.methods {
		for _, s := range d.settings {
			if c := d.cells[s][m]; c != nil && c.shared {
				notes = append(notes, fmt.Sprintf("%s ran in a stage with other methods, so its peak memory and process times are theirs too.", m))
				break
			}
		}
		for _, s := range d.settings {
			if c := d.cells[s][m]; c != nil && c.noUsage {
				notes = append(notes, fmt.Sprintf("Some %s stamps do not record the process's usage (written before it was recorded, or on a system that does not report it): \"—\".", m))
				break
			}
		}
	}
	if len(notes) > 0 {
		w("\n%s\n", strings.Join(notes, "\n"))
	}
	if p.Command != "" {
		w("\nMade by `%s` from the outputs of `%s`.\n", p.Command, p.Config)
	}
	return b.String()
}

func firstLast(xs []string) []string {
	if len(xs) <= 1 {
		return xs
	}
	return []string{xs[0], xs[len(xs)-1]}
}
