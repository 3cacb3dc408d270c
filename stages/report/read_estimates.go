package report

// Reading method stages for their cost: estimates.parquet (seconds,
// iterations, convergence) with the stamps of their instances (the
// process's wall and CPU seconds and peak memory), a fact obs per setting
// and method.

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/renn-go/renn/formats"
)

// costSpec declares how a cost section compares its methods.
type costSpec struct {
	// Reference is the method whose variable marginals those of Compare
	// are measured against (mean and largest |ΔP(x_i)|).
	Reference string
	Compare   []string
	// MinFitN is the fewest variables of a setting that enters the
	// growth exponents (smaller ones are dominated by fixed costs).
	MinFitN int `toml:"min_fit_n"`
	// Short maps a method to its short run (the same method stopped after
	// a few steps): not a column, the difference of the two processes' CPU
	// seconds per step is the method's CPU seconds per step.
	Short map[string]string
	// MinStepShare is the smallest share of a process's CPU seconds that
	// the difference of a full and a short run must reach to be told from
	// the noise between two runs.
	MinStepShare float64 `toml:"min_step_share"`
	// Steps are the prefixes of the methods that count optimisation
	// steps rather than sweeps.
	Steps []string
}

// costCell accumulates one method on one setting.
type costCell struct {
	models, converged   int
	seconds, iterations float64 // summed over the models
	wall, cpu           float64 // summed over its instances' processes
	rssKiB              int64
	noUsage, shared     bool
	instances           []string
	marginals           []string
}

// readCosts reads every completed instance of the plan that wrote
// estimates.parquet.
func (s *section) readCosts(pt *part) error {
	cells := map[[2]string]*costCell{}
	sets := map[string]map[int32]*group{}
	for _, inst := range s.plan.insts {
		if !slices.Contains([]string{"run-baselines", "train-renn", "exact-infer"}, inst.binary) {
			continue
		}
		pt.instances++
		st, done, err := readStamp(inst.outDir)
		if err != nil {
			return err
		} else if !done {
			continue
		}
		path := filepath.Join(inst.outDir, formats.EstimatesFile)
		rows, _, err := formats.ReadEstimates(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		pt.done++
		models := inst.inputOf("models")
		if models == nil {
			return fmt.Errorf("stage %s: no models input, so its models' sizes are unknown", inst.id)
		}
		if sets[models.outDir] == nil {
			if sets[models.outDir], err = (&learnReader{d: s.data}).readSettings(models.outDir); err != nil {
				return err
			}
		}
		if err := s.addCosts(cells, rows, sets[models.outDir], inst, st, path); err != nil {
			return err
		}
	}
	return s.costFacts(cells)
}

func (s *section) addCosts(cells map[[2]string]*costCell, rows []formats.EstimateRow, sets map[int32]*group, inst *instance, st stamp, path string) error {
	var methods []string
	for _, r := range rows {
		if !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
	}
	for _, r := range rows {
		g, ok := sets[r.ModelID]
		if !ok {
			return fmt.Errorf("%s: model %d is not in %s", path, r.ModelID, filepath.Join(inst.inputOf("models").outDir, formats.ModelInfoFile))
		}
		k := [2]string{g.key, r.Method}
		c := cells[k]
		if c == nil {
			c = &costCell{}
			cells[k] = c
			if !slices.Contains(slices.Collect(maps.Values(s.spec.Cost.Short)), r.Method) {
				s.data.add(newObs("", inst.stage, g, "", r.Method))
			}
		}
		c.models++
		c.seconds += r.Seconds
		c.iterations += float64(r.Iterations)
		c.converged += int(b2f(r.Converged))
		if !slices.Contains(c.instances, inst.id) {
			c.instances = append(c.instances, inst.id)
			c.wall, c.cpu, c.rssKiB = c.wall+st.seconds, c.cpu+st.cpu, max(c.rssKiB, st.rssKiB)
			c.noUsage, c.shared = c.noUsage || st.rssKiB <= 0, c.shared || len(methods) > 1
			c.marginals = append(c.marginals, filepath.Join(inst.outDir, formats.MarginalsFile))
		}
	}
	return nil
}

// costFacts writes every cell's facts: means per model, per iteration,
// the process's, and per step from its short run.
func (s *section) costFacts(cells map[[2]string]*costCell) error {
	c := s.spec.Cost
	for _, o := range s.data.obs {
		cell := cells[[2]string{o.set.key, o.method}]
		if cell == nil {
			continue
		}
		n, iters := float64(cell.models), cell.iterations/float64(cell.models)
		cpu := cell.cpu
		if cell.noUsage {
			cpu = math.NaN()
		}
		o.num["seconds"], o.num["iterations"], o.num["per_iteration"] = cell.seconds/n, iters, perIteration(cell.seconds, cell.iterations)
		o.num["rss_mib"] = math.NaN()
		if cell.rssKiB > 0 && !cell.noUsage {
			o.num["rss_mib"] = float64(cell.rssKiB) / 1024
		}
		o.text["converged"] = fmt.Sprintf("%d/%d", cell.converged, cell.models)
		if cell.models == 1 {
			o.text["converged"] = map[bool]string{true: "yes", false: "no"}[cell.converged == 1]
		}
		inst := float64(len(cell.instances))
		o.num["wall"], o.num["cpu"], o.num["cpu_per_iteration"] = cell.wall/inst, cpu/inst, perIteration(cpu/n, iters)
		o.text["iters"], o.text["iter"] = "iters", "iter"
		if hasPrefix(o.method, c.Steps) {
			o.text["iters"], o.text["iter"], o.num["counts_steps"] = "steps", "step", 1
		}
		if cell.noUsage {
			o.num["no_usage"] = 1
		}
		if cell.shared {
			o.num["shared"] = 1
		}
		step := math.NaN()
		if short := cells[[2]string{o.set.key, c.Short[o.method]}]; short != nil {
			o.num["has_short"], o.num["short_steps"] = 1, short.iterations/float64(short.models)
			step = cpuPerStep(cpu/n, iters, short, c.MinStepShare)
		}
		o.num["cpu_per_step"], o.num["cpu_besides_steps"] = step, cpu/n-iters*step
	}
	return s.costDeltas(cells)
}

func perIteration(x, iterations float64) float64 {
	if iterations <= 0 {
		return math.NaN()
	}
	return x / iterations
}

// cpuPerStep is the CPU seconds per step between the end of the short run
// and the end of the full one; NaN without a short run that took fewer
// steps, or when the difference is under minShare of the full run's.
func cpuPerStep(cpu, iters float64, short *costCell, minShare float64) float64 {
	shortIters := short.iterations / float64(short.models)
	shortCPU := short.cpu / float64(short.models)
	if short.noUsage {
		shortCPU = math.NaN()
	}
	diff := cpu - shortCPU
	if iters <= shortIters || diff < minShare*cpu {
		return math.NaN()
	}
	return diff / (iters - shortIters)
}

// costDeltas measures the variable marginals of the compared methods
// against the reference's on every setting.
func (s *section) costDeltas(cells map[[2]string]*costCell) error {
	c := s.spec.Cost
	for _, o := range s.data.obs {
		ref := cells[[2]string{o.set.key, c.Reference}]
		cell := cells[[2]string{o.set.key, o.method}]
		if ref == nil || cell == nil || !slices.Contains(c.Compare, o.method) {
			continue
		}
		mean, largest, err := varDelta(ref.marginals, c.Reference, cell.marginals, o.method)
		if err != nil {
			return err
		}
		o.num["delta_mean"], o.num["delta_max"], o.text["reference"] = mean, largest, c.Reference
	}
	return nil
}

// varDelta is the mean and the largest |p - q| over every entry of every
// variable marginal of method a (in files fa) against b (in fb), over the
// variables of the models both have.
func varDelta(fa []string, a string, fb []string, b string) (mean, largest float64, err error) {
	read := func(files []string, method string) (map[[2]int32][]float64, error) {
		out := map[[2]int32][]float64{}
		for _, f := range files {
			rows, _, err := formats.ReadMarginals(f)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				if r.Kind == "var" && r.Method == method {
					out[[2]int32{r.ModelID, r.Index}] = r.Probs
				}
			}
		}
		return out, nil
	}
	pa, err := read(fa, a)
	if err != nil {
		return 0, 0, err
	}
	pb, err := read(fb, b)
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
			return 0, 0, fmt.Errorf("model %d variable %d: %s has %d states, %s %d", k[0], k[1], a, len(p), b, len(q))
		}
		for i := range p {
			v := math.Abs(p[i] - q[i])
			sum, largest, n = sum+v, math.Max(largest, v), n+1
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), nil
	}
	return sum / float64(n), largest, nil
}

// costLabels names the settings: the side of a square grid or torus
// (300x300), else the number of variables; with the graph when there are
// several, with gamma when there are several.
func (s *section) costLabels() {
	graphs, gammas := map[string]bool{}, map[float64]bool{}
	for _, g := range s.data.settings {
		graphs[g.graph], gammas[g.gamma] = true, true
	}
	for _, g := range s.data.settings {
		g.label = fmt.Sprintf("n=%d", g.size)
		if l := int(math.Round(math.Sqrt(float64(g.size)))); (g.graph == "grid" || g.graph == "torus") && l*l == g.size {
			g.label = fmt.Sprintf("%dx%d", l, l)
		}
		if len(graphs) > 1 {
			g.label = g.graph + " " + g.label
		}
		if len(gammas) > 1 {
			g.label += " γ=" + strconv.FormatFloat(g.gamma, 'g', -1, 64)
		}
	}
	head := &obs{num: map[string]float64{}, text: map[string]string{"head": "model"}}
	if len(graphs) == 1 {
		head.text["head"] = slices.Collect(maps.Keys(graphs))[0]
	}
	s.data.add(head)
}
