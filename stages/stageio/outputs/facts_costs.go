package outputs

// Reading method stages for their cost: estimates.parquet (seconds,
// iterations, convergence) with the stamps of their instances (the
// process's wall and CPU seconds and peak memory), a fact per setting
// and method.

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
)

// CostSpec declares how a cost section compares its methods.
type CostSpec struct {
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
	metrics.Cost
	shared bool
	dirs   []string // of its instances
}

// ReadCosts reads every completed instance of the plan that wrote
// estimates.parquet.
func (s *Reader) ReadCosts(pt *Progress) error {
	cells := map[[2]string]*costCell{}
	sets := map[string]map[int32]*Setting{}
	for _, inst := range s.Insts {
		if !slices.Contains([]string{"run-baselines", "train-renn", "exact-infer"}, inst.Binary) {
			continue
		}
		pt.Instances++
		st, err := s.Usage(inst.OutDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		path := filepath.Join(inst.OutDir, formats.EstimatesFile)
		rows, _, err := formats.ReadEstimates(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return err
		}
		pt.Done++
		models := inst.InputOf("models")
		if models == nil {
			return fmt.Errorf("stage %s: no models input, so its models' sizes are unknown", inst.ID)
		}
		if sets[models.OutDir] == nil {
			if sets[models.OutDir], err = s.readSettings(models.OutDir); err != nil {
				return err
			}
		}
		if err := s.addCosts(cells, rows, sets[models.OutDir], inst, st, path); err != nil {
			return err
		}
	}
	return s.costFacts(cells)
}

func (s *Reader) addCosts(cells map[[2]string]*costCell, rows []formats.EstimateRow, sets map[int32]*Setting, inst *Instance, st Usage, path string) error {
	shared := slices.ContainsFunc(rows, func(r formats.EstimateRow) bool { return r.Method != rows[0].Method })
	for _, r := range rows {
		g, ok := sets[r.ModelID]
		if !ok {
			return fmt.Errorf("%s: model %d is not in %s", path, r.ModelID, filepath.Join(inst.InputOf("models").OutDir, formats.ModelInfoFile))
		}
		k := [2]string{g.Key, r.Method}
		c := cells[k]
		if c == nil {
			c = &costCell{}
			cells[k] = c
			if !slices.Contains(slices.Collect(maps.Values(s.Cost.Short)), r.Method) {
				s.Add(NewFact("", inst.Stage, g, "", r.Method))
			}
		}
		c.Models, c.Seconds, c.Iterations = c.Models+1, c.Seconds+r.Seconds, c.Iterations+float64(r.Iterations)
		c.Converged += int(b2f(r.Converged))
		if !slices.Contains(c.dirs, inst.OutDir) {
			c.dirs = append(c.dirs, inst.OutDir)
			c.Wall, c.CPU, c.RSSKiB, c.Processes = c.Wall+st.Seconds, c.CPU+st.CPUSeconds, max(c.RSSKiB, st.MaxRSSKiB), c.Processes+1
			c.NoUsage, c.shared = c.NoUsage || st.MaxRSSKiB <= 0, c.shared || shared
		}
	}
	return nil
}

// costFacts writes every cell's facts: means per model, per iteration,
// the process's, per step from its short run, and for a compared method,
// its variable marginals against the reference's.
func (s *Reader) costFacts(cells map[[2]string]*costCell) error {
	c := s.Cost
	for _, o := range s.Obs {
		cell := cells[[2]string{o.Set.Key, o.Method}]
		if cell == nil {
			continue
		}
		n, iters, cpu := float64(cell.Models), cell.Iterations/float64(cell.Models), cell.MeanCPU()
		o.Num["seconds"], o.Num["iterations"], o.Num["per_iteration"] = cell.Seconds/n, iters, metrics.PerIteration(cell.Seconds, cell.Iterations)
		o.Num["rss_mib"] = math.NaN()
		if cell.RSSKiB > 0 && !cell.NoUsage {
			o.Num["rss_mib"] = float64(cell.RSSKiB) / 1024
		}
		o.Text["converged"] = fmt.Sprintf("%d/%d", cell.Converged, cell.Models)
		if cell.Models == 1 {
			o.Text["converged"] = map[bool]string{true: "yes", false: "no"}[cell.Converged == 1]
		}
		o.Num["wall"], o.Num["cpu"] = cell.PerProcess()
		o.Num["cpu_per_iteration"] = metrics.PerIteration(cpu, iters)
		o.Text["iters"], o.Text["iter"] = "iters", "iter"
		if HasPrefix(o.Method, c.Steps) {
			o.Text["iters"], o.Text["iter"], o.Num["counts_steps"] = "steps", "step", 1
		}
		if cell.NoUsage {
			o.Num["no_usage"] = 1
		}
		if cell.shared {
			o.Num["shared"] = 1
		}
		step := math.NaN()
		if short := cells[[2]string{o.Set.Key, c.Short[o.Method]}]; short != nil {
			o.Num["has_short"], o.Num["short_steps"] = 1, short.Iterations/float64(short.Models)
			step = cell.CPUPerStep(short.Cost, c.MinStepShare)
		}
		o.Num["cpu_per_step"], o.Num["cpu_besides_steps"] = step, cpu-iters*step
		ref := cells[[2]string{o.Set.Key, c.Reference}]
		if ref == nil || !slices.Contains(c.Compare, o.Method) {
			continue
		}
		pa, err := VarMarginals(ref.dirs, c.Reference)
		if err != nil {
			return err
		}
		pb, err := VarMarginals(cell.dirs, o.Method)
		if err != nil {
			return err
		}
		if o.Num["delta_mean"], o.Num["delta_max"], err = metrics.MarginalDelta(pa, pb); err != nil {
			return fmt.Errorf("%s against %s: %w", c.Reference, o.Method, err)
		}
		o.Text["reference"] = c.Reference
	}
	return nil
}
