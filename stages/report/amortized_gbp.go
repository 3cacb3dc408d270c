package report

// Test sets of the amortized section too large for exact inference (30x30
// grids): every method's answers there are compared with GBP's, which
// minimise the same region free energy on the same region graph.

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
)

// gbpRef is the reference method of unscored test sets.
const gbpRef = "gbp"

// gbpSet is one unscored test set: the methods run on its models, against GBP.
type gbpSet struct {
	family string // the weights stage read on it
	models string // the models stage
	name   string // e.g. "30x30 (20)"
	rows   []gbpRow
}

// gbpRow is one method on a gbpSet: means over the models.
type gbpRow struct {
	method  string
	models  int
	dp, lzr float64 // mean |ΔP| against GBP's variable marginals; RMS of ln Z − GBP's ln Z
	seconds float64
}

// readGBPSets finds the models stages that a stage reading --weights ran on
// but no amortized_* score stage scored, and compares the methods on each
// with GBP. A set whose runs have not all completed is left out.
func readGBPSets(plan *pipeline.Plan) ([]gbpSet, error) {
	scored := map[string]bool{}
	for _, inst := range plan.Instances {
		if strings.HasPrefix(inst.Stage.Name, AmortizedPrefix) {
			for _, in := range inst.Inputs {
				if in.Flag == "models" && in.From != nil {
					scored[in.From.Stage.Name] = true
				}
			}
		}
	}
	var sets []gbpSet
	for _, inst := range plan.Instances {
		w, m := inputStage(inst, "weights"), inputStage(inst, "models")
		if w == nil || m == nil || scored[m.Stage.Name] || slices.ContainsFunc(sets, func(s gbpSet) bool { return s.models == m.Stage.Name }) {
			continue
		}
		set, err := readGBPSet(plan, m)
		if err != nil {
			return nil, err
		}
		if set != nil {
			set.family = w.Stage.Name
			sets = append(sets, *set)
		}
	}
	return sets, nil
}

func inputStage(inst *pipeline.Instance, flag string) *pipeline.Instance {
	for _, in := range inst.Inputs {
		if in.Flag == flag && in.From != nil {
			return in.From
		}
	}
	return nil
}

// gbpRun is one method's answers on the models of a set.
type gbpRun struct {
	vars    map[[2]int32][]float64 // (model, variable) -> marginal
	logZ    map[int32]float64
	seconds map[int32]float64
}

// readGBPSet reads every method run on models stage m; nil if some run has
// not completed or GBP has not run.
func readGBPSet(plan *pipeline.Plan, m *pipeline.Instance) (*gbpSet, error) {
	runs := map[string]*gbpRun{}
	var methods []string
	for _, inst := range plan.Instances {
		if inputStage(inst, "models") != m || inst.Stage.Run[0] == "build-regions" {
			continue
		}
		est := filepath.Join(inst.OutDir, formats.EstimatesFile)
		if _, err := os.Stat(est); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		erows, _, err := formats.ReadEstimates(est)
		if err != nil {
			return nil, err
		}
		mrows, _, err := formats.ReadMarginals(filepath.Join(inst.OutDir, formats.MarginalsFile))
		if err != nil {
			return nil, err
		}
		for _, e := range erows {
			r := runs[e.Method]
			if r == nil {
				r = &gbpRun{vars: map[[2]int32][]float64{}, logZ: map[int32]float64{}, seconds: map[int32]float64{}}
				runs[e.Method] = r
				methods = append(methods, e.Method)
			}
			r.logZ[e.ModelID], r.seconds[e.ModelID] = e.LogZ, e.Seconds
		}
		for _, mr := range mrows {
			if r := runs[mr.Method]; r != nil && mr.Kind == "var" {
				r.vars[[2]int32{mr.ModelID, mr.Index}] = mr.Probs
			}
		}
	}
	ref := runs[gbpRef]
	if ref == nil {
		return nil, nil
	}
	info, _, err := formats.ReadModelInfo(filepath.Join(m.OutDir, formats.ModelInfoFile))
	if err != nil {
		return nil, err
	}
	if len(info) == 0 {
		return nil, nil
	}
	set := &gbpSet{models: m.Stage.Name, name: fmt.Sprintf("%s (%d)", gridName(setting{graph: info[0].Graph, size: len(info[0].Cards)}), len(info))}
	for _, method := range methods {
		row, err := compareGBP(runs[method], ref, method)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.OutDir, err)
		}
		set.rows = append(set.rows, row)
	}
	return set, nil
}

// compareGBP averages a run's differences from GBP's over the models both
// answered.
func compareGBP(r, ref *gbpRun, method string) (gbpRow, error) {
	row := gbpRow{method: method}
	var dp, lz2, sec float64
	for id, lz := range r.logZ {
		refLZ, ok := ref.logZ[id]
		if !ok {
			continue
		}
		sum, n := 0.0, 0
		for k, p := range r.vars {
			if k[0] != id {
				continue
			}
			q := ref.vars[k]
			if len(q) != len(p) {
				return row, fmt.Errorf("%s: model %d variable %d has %d states, gbp %d", method, id, k[1], len(p), len(q))
			}
			for s := range p {
				sum += math.Abs(p[s] - q[s])
				n++
			}
		}
		if n > 0 {
			dp += sum / float64(n)
		}
		lz2 += (lz - refLZ) * (lz - refLZ)
		sec += r.seconds[id]
		row.models++
	}
	if row.models > 0 {
		k := float64(row.models)
		row.dp, row.lzr, row.seconds = dp/k, math.Sqrt(lz2/k), sec/k
	}
	return row, nil
}

// gbpMarkdown renders the unscored sets, methods in the section's order.
func gbpMarkdown(sets []gbpSet) string {
	if len(sets) == 0 {
		return ""
	}
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("### Too large for exact inference: against GBP\n\n")
	w("No junction tree fits these grids (a 30x30 grid has treewidth 30), so every method is compared with GBP's answer ")
	w("on the same faces region graph: mean |ΔP| from GBP's variable marginals, RMS of ln Z − GBP's ln Z.\n\n")
	w("| family | models | method | mean \\|ΔP\\| vs gbp | ln Z RMS vs gbp | seconds per model |\n|---|---|---|---:|---:|---:|\n")
	for _, s := range sets {
		for _, m := range amortizedMethods {
			i := slices.IndexFunc(s.rows, func(r gbpRow) bool { return r.method == m })
			if i < 0 || s.rows[i].models == 0 {
				continue
			}
			r := s.rows[i]
			if m == gbpRef {
				w("| %s | %s | %s | – | – | %.3f |\n", s.family, s.name, m, r.seconds)
				continue
			}
			w("| %s | %s | %s | %.4f | %.3f | %.3f |\n", s.family, s.name, m, r.dp, r.lzr, r.seconds)
		}
	}
	w("\n")
	return b.String()
}
