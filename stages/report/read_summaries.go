package report

// Reading score stages' summaries (a mean, std and count per setting,
// method and metric), and the answers of method stages on models no score
// stage scored, compared with a reference method's.

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/formats"
)

// family is one score stage of a summaries section: the settings it
// scored, named after the network its predictions read.
type family struct {
	Name, Stage string
	Present     bool // its summary has been written
	// path, cols and rows are its summary as read (the last file's path
	// and group columns, every file's rows), for the plots.
	path string
	cols []string
	rows []formats.SummaryRow
}

// readSummaries reads the summaries of the score stages among insts.
func (s *section) readSummaries(pt *part, insts []*instance) error {
	for _, stage := range stages(insts, "score") {
		pt.stages = append(pt.stages, stage)
		fam := &family{Name: familyOf(s.plan, stage, pt.prefix), Stage: stage}
		for _, inst := range s.plan.of(stage) {
			ok, err := s.readSummary(pt, fam, inst)
			if err != nil {
				return err
			}
			fam.Present = fam.Present || ok
		}
		s.data.families = append(s.data.families, fam)
	}
	return nil
}

// readSummary reads one instance's summary.parquet; ok is false when it
// has not been written.
func (s *section) readSummary(pt *part, fam *family, inst *instance) (ok bool, err error) {
	path := filepath.Join(inst.outDir, formats.SummaryFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	cols, rows, _, err := formats.ReadSummary(path)
	if err != nil {
		return false, err
	}
	idx := map[string]int{}
	for _, c := range []string{"graph", "size", "gamma"} {
		k := slices.Index(cols, c)
		if k < 0 {
			return false, fmt.Errorf("%s: no %s group column (have %v): score it with --group=graph,size,gamma", path, c, cols)
		}
		idx[c] = k
	}
	fam.path, fam.cols, fam.rows = path, cols, append(fam.rows, rows...)
	for _, r := range rows {
		size, err1 := strconv.Atoi(r.Group[idx["size"]])
		gamma, err2 := 0.0, error(nil)
		if g := r.Group[idx["gamma"]]; g != "" { // blank: imported models have no gamma
			gamma, err2 = strconv.ParseFloat(g, 64)
		}
		if err1 != nil || err2 != nil {
			return false, fmt.Errorf("%s: row %s %s: size %q or gamma %q is not a number", path, r.Method, r.Metric, r.Group[idx["size"]], r.Group[idx["gamma"]])
		}
		ps := paperSetting(r.Group[idx["graph"]], size, gamma)
		g := s.data.setting(fam.Stage+"|"+ps.key, func() *group {
			ps.family, ps.label = fam.Name, s.label(ps)
			return ps
		})
		o := s.data.find(g, "", r.Method)
		if len(o) == 0 {
			o = []*obs{s.data.add(newObs(pt.prefix, fam.Stage, g, "", r.Method))}
		}
		if _, dup := o[0].num[r.Metric]; dup {
			return false, fmt.Errorf("%s: %s %s %s given twice", path, ps.key, r.Method, r.Metric)
		}
		o[0].num[r.Metric], o[0].num[r.Metric+"_std"], o[0].num[r.Metric+"_n"] = r.Mean, r.Std, float64(r.N)
	}
	return true, nil
}

// familyOf names the family of a score stage by the weights its predictions
// read (the input stage given as --weights), else by the stage itself.
func familyOf(p *plan, stage, prefix string) string {
	for _, inst := range p.of(stage) {
		for _, pred := range inst.inputsOf("pred") {
			if w := pred.inputOf("weights"); w != nil {
				return w.stage
			}
		}
	}
	return strings.TrimPrefix(stage, prefix)
}

// label names a setting as the section's settings are named: "side", the
// side of a square grid (10x10), else graph and size.
func (s *section) label(g *group) string {
	if s.spec.Labels == "side" {
		if l := int(math.Round(math.Sqrt(float64(g.size)))); g.graph == "grid" && l*l == g.size {
			return fmt.Sprintf("%dx%d", l, l)
		}
		return fmt.Sprintf("%s n=%d", g.graph, g.size)
	}
	return g.label
}

// sortSettings orders the settings as the section says (Order).
func (s *section) sortSettings() {
	sort.SliceStable(s.data.settings, func(a, b int) bool {
		x, y := s.data.settings[a], s.data.settings[b]
		switch s.spec.Order {
		case "size":
			if x.graph != y.graph {
				return x.graph < y.graph
			}
			return x.size < y.size
		case "paper":
			return x.less(y)
		}
		return false
	})
}

// readUnscored finds the models stages that a stage reading --weights ran
// on but no score stage of the section scored, and compares every method's
// answers there with those of the method ref. A set whose runs have not
// all completed is left out.
func (s *section) readUnscored(ref string) error {
	scored := map[string]bool{}
	for _, inst := range s.plan.insts {
		if hasPrefix(inst.stage, s.spec.Parts) {
			for _, m := range inst.inputsOf("models") {
				scored[m.stage] = true
			}
		}
	}
	pt := &part{prefix: "unscored"}
	for _, inst := range s.plan.insts {
		w, m := inst.inputOf("weights"), inst.inputOf("models")
		if w == nil || m == nil || scored[m.stage] {
			continue
		}
		scored[m.stage] = true
		if err := s.readUnscoredSet(pt, w.stage, m, ref); err != nil {
			return err
		}
	}
	s.data.parts = append(s.data.parts, pt)
	return nil
}

// answers are one method's answers on the models of a set.
type answers struct {
	vars    map[[2]int32][]float64 // (model, variable) -> marginal
	logZ    map[int32]float64
	seconds map[int32]float64
}

func (s *section) readUnscoredSet(pt *part, fam string, m *instance, ref string) error {
	runs := map[string]*answers{}
	var order []string
	for _, inst := range s.plan.insts {
		if inst.inputOf("models") != m || inst.binary == "build-regions" {
			continue
		}
		done, err := readAnswers(inst, runs, &order)
		if err != nil || !done {
			return err
		}
	}
	if runs[ref] == nil {
		return nil
	}
	info, _, err := formats.ReadModelInfo(filepath.Join(m.outDir, formats.ModelInfoFile))
	if err != nil || len(info) == 0 {
		return err
	}
	g := &group{family: fam, key: m.stage, graph: info[0].Graph, size: len(info[0].Cards)}
	g.label = fmt.Sprintf("%s (%d)", s.label(g), len(info))
	g = s.data.setting(pt.prefix+m.stage, func() *group { return g })
	for _, method := range order {
		if err := s.compareAnswers(pt, g, method, runs[method], runs[ref], ref); err != nil {
			return fmt.Errorf("%s: %w", m.outDir, err)
		}
	}
	return nil
}

// readAnswers adds the estimates and variable marginals of inst to runs;
// done is false when it has not run.
func readAnswers(inst *instance, runs map[string]*answers, order *[]string) (done bool, err error) {
	est := filepath.Join(inst.outDir, formats.EstimatesFile)
	if _, err := os.Stat(est); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	erows, _, err := formats.ReadEstimates(est)
	if err != nil {
		return false, err
	}
	mrows, _, err := formats.ReadMarginals(filepath.Join(inst.outDir, formats.MarginalsFile))
	if err != nil {
		return false, err
	}
	for _, e := range erows {
		r := runs[e.Method]
		if r == nil {
			r = &answers{vars: map[[2]int32][]float64{}, logZ: map[int32]float64{}, seconds: map[int32]float64{}}
			runs[e.Method] = r
			*order = append(*order, e.Method)
		}
		r.logZ[e.ModelID], r.seconds[e.ModelID] = e.LogZ, e.Seconds
	}
	for _, mr := range mrows {
		if r := runs[mr.Method]; r != nil && mr.Kind == "var" {
			r.vars[[2]int32{mr.ModelID, mr.Index}] = mr.Probs
		}
	}
	return true, nil
}

// compareAnswers adds a method's facts on a set: over the models it and
// the reference answered, the mean of each model's mean |ΔP| from the
// reference's variable marginals (ref_mean_abs), the RMS of ln Z minus
// the reference's (ref_logz_rms), and the mean seconds.
func (s *section) compareAnswers(pt *part, g *group, method string, r, ref *answers, refName string) error {
	var dps, dlz, secs []float64
	ids := make([]int32, 0, len(r.logZ))
	for id := range r.logZ {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		refLZ, ok := ref.logZ[id]
		if !ok {
			continue
		}
		var p, q []float64
		for v := int32(0); ; v++ {
			a, ok := r.vars[[2]int32{id, v}]
			if !ok {
				break
			}
			b := ref.vars[[2]int32{id, v}]
			if len(a) != len(b) {
				return fmt.Errorf("%s: model %d variable %d has %d states, %s %d", method, id, v, len(a), refName, len(b))
			}
			p, q = append(p, a...), append(q, b...)
		}
		dp := 0.0
		if len(p) > 0 {
			dp, _ = metrics.MeanAbsDiff(p, q)
		}
		dps, dlz, secs = append(dps, dp), append(dlz, r.logZ[id]-refLZ), append(secs, r.seconds[id])
	}
	if len(secs) == 0 {
		return nil
	}
	o := s.data.add(newObs(pt.prefix, "", g, "", method))
	o.num["seconds"] = metrics.Mean(secs)
	if method != refName {
		o.num["ref_mean_abs"], o.num["ref_logz_rms"] = metrics.Mean(dps), metrics.RootMeanSquare(dlz)
	}
	return nil
}
