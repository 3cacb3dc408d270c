package outputs

// Reading score stages model by model (ReadScored) into facts: a
// model's exact ln Z and shape, every run's scores and estimate, and the
// comparisons of two methods' runs the reader is given (Compare).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
)

// ReadScores reads the score instances among insts into part pt.
func (s *Reader) ReadScores(pt *Progress, insts []*Instance) error {
	pt.Stages = append(pt.Stages, Stages(insts, "score")...)
	for _, inst := range insts {
		if inst.Binary != "score" {
			continue
		}
		if _, err := os.Stat(filepath.Join(inst.OutDir, formats.ScoresFile)); errors.Is(err, fs.ErrNotExist) {
			pt.NotRun = append(pt.NotRun, inst.ID)
			continue
		}
		shards, err := readScored(inst, s.CfgDir, s.Beliefs)
		if err != nil {
			return err
		}
		s.emit(pt, inst, shards)
	}
	return nil
}

// Answer is r as metrics compares answers, its factor beliefs in the
// model's order.
func (m *ScoredModel) Answer(r *ScoredRun) metrics.Answer {
	a := metrics.Answer{Converged: r.Est.Converged, F: r.Est.FreeEnergy, MeanAbs: r.Metrics[metrics.VarMeanAbs], Beliefs: mrf.Marginals{Vars: r.Vars}}
	for k := range m.Model.Factors {
		a.Beliefs.Factors = append(a.Beliefs.Factors, r.Factors[int32(k)])
	}
	return a
}

// emit adds the models of a score instance to the store, shard
// by shard in model_info order, each in the setting of its family (its
// name without the trailing index).
func (s *Reader) emit(pt *Progress, inst *Instance, shards []*scoredShard) {
	for _, sh := range shards {
		for _, m := range sh.order {
			if len(m.Runs) == 0 && !m.Exact {
				continue // not scored
			}
			key := SettingKey(m.Info.Name)
			if s.Labels == "shape" {
				key = SettingKey(strings.TrimSuffix(m.Info.Name, ".uai"))
			}
			g := s.Setting(pt.Prefix+key, func() *Setting {
				if s.Labels == "shape" {
					kind, label := shapeLabel(key)
					return &Setting{Key: key, Label: label, Graph: kind, Size: len(m.Info.Cards)}
				}
				return &Setting{Key: key, Label: settingLabel(m.Info), Graph: m.Info.Graph, Size: len(m.Info.Cards), Gamma: m.Info.Gamma}
			})
			s.AddScored(pt, inst.Stage, g, m)
		}
	}
}

// AddScored adds model m of a score stage and its runs in setting g.
func (s *Reader) AddScored(pt *Progress, stage string, g *Setting, m *ScoredModel) {
	mo := s.modelObs(pt, stage, g, m)
	for _, method := range slices.SortedFunc(maps.Keys(m.Runs), methods.Compare) {
		if r := m.Runs[method]; r.Est != nil || len(r.Metrics) > 0 {
			s.runObs(pt, stage, g, m, method, r)
		}
	}
	s.compare(mo, m)
}

// modelObs returns the facts of model m itself (its exact ln Z and shape),
// made on first reading.
func (s *Reader) modelObs(pt *Progress, stage string, g *Setting, m *ScoredModel) *Fact {
	o := s.Find(g, m.Info.Name, "")
	if len(o) == 0 {
		o = []*Fact{s.Add(NewFact(pt.Prefix, stage, g, m.Info.Name, ""))}
		sh := mrf.ShapeOf(m.Model)
		o[0].Num["n_vars"], o[0].Num["n_factors"], o[0].Num["max_arity"] = float64(len(m.Info.Cards)), float64(sh.Factors), float64(sh.MaxArity)
		o[0].Num["zeros"], o[0].Num["observed"] = float64(sh.Zeros), float64(sh.Observed)
		o[0].Text["states"] = strconv.Itoa(sh.MaxCard)
		if sh.MinCard != sh.MaxCard {
			o[0].Text["states"] = fmt.Sprintf("%d-%d", sh.MinCard, sh.MaxCard)
		}
	}
	if m.Exact {
		o[0].Num["neg_log_z"], o[0].Num["log_z_exact"] = m.NegLogZ, -m.NegLogZ
	}
	return o[0]
}

// runObs adds one run: its scores, its estimate and what follows from it
// and the exact ln Z (the free energy's gap, a bound's slack).
func (s *Reader) runObs(pt *Progress, stage string, g *Setting, m *ScoredModel, method string, r *ScoredRun) {
	pred := r.Pred
	col := s.column(method, pred)
	for _, o := range s.Find(g, m.Info.Name, col) {
		if pred != nil && o.Text["pred"] == pred.ID {
			return // one run scored by two stages
		}
		col += " [" + stage + "]"
	}
	o := s.Add(NewFact(pt.Prefix, stage, g, m.Info.Name, col))
	maps.Copy(o.Num, r.Metrics)
	e := r.Est
	if e == nil {
		return
	}
	if pred != nil {
		o.Text["pred"] = pred.ID
	}
	o.Num["est_converged"], o.Num["free_energy"] = b2f(e.Converged), e.FreeEnergy
	var p struct {
		Regions string
		Check   *string
		Options struct {
			MaxSeconds float64 `json:"max_seconds"`
		}
	}
	json.Unmarshal([]byte(e.Params), &p)
	if p.Regions != "" {
		o.Text["regions"] = p.Regions
	}
	budgetFacts(o, p.Options.MaxSeconds, e.Certificate, m)
	if p.Check != nil {
		o.Num["check_recorded"] = 1
	}
	o.Num["check_failed"] = b2f(p.Check != nil && *p.Check != "")
	if !m.Exact {
		return
	}
	o.Num["fe_exact"], o.Num["fe_gap"] = e.FreeEnergy, e.FreeEnergy-m.NegLogZ
	if entry, err := methods.Lookup(method); err == nil && (entry.LogZ == methods.LogZLowerBound || entry.LogZ == methods.LogZUpperBound) {
		slack := e.LogZ + m.NegLogZ // ln Ẑ − ln Z
		if entry.LogZ == methods.LogZLowerBound {
			slack = -slack
		}
		o.Num["bound_slack"] = slack
	}
}

// column names a run's column: its method, and, where the reader's
// columns say so, the region scheme its regions input asked for when not
// auto.
func (s *Reader) column(method string, pred *Instance) string {
	if s.Columns == "method+scheme" && pred != nil {
		if reg := pred.InputOf("regions"); reg != nil && reg.Flags["scheme"] != "" && reg.Flags["scheme"] != "auto" {
			return method + " (" + reg.Flags["scheme"] + ")"
		}
	}
	return method
}

// SettingKey is a model's name without its trailing index: the models of
// one sample-model call share it.
func SettingKey(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

// budgetFacts records a run's time budget (its max_seconds option, when
// set), whether exact inference finished within it (exact_fits, and its
// complement exact_over), and its certificate, one fact per kind (1 for
// the run's, 0 for the others), so that tables and claims count them.
func budgetFacts(o *Fact, budget float64, cert string, m *ScoredModel) {
	if budget > 0 {
		o.Num["budget"] = budget
		if m.Exact {
			fits := m.ExactSeconds <= budget
			o.Num["exact_fits"], o.Num["exact_over"] = b2f(fits), b2f(!fits)
		}
	}
	if cert == "" {
		return
	}
	for _, c := range []string{infer.CertExact, infer.CertConverged, infer.CertMonteCarlo, infer.CertBounds, infer.CertNone} {
		o.Num["cert_"+strings.ReplaceAll(c, "-", "_")] = b2f(c == cert)
	}
}

// Comparisons of two methods' answers on every scored model
// (metrics.CompareFixedPoints, metrics.BeliefDistance), recorded among the
// model's own facts under the comparison's name.

// CompareSpec declares a comparison of the answers of methods A and B:
// "fixed_points", two runs of BP (the same fixed point, and each a
// stationary point of the Bethe free energy?), or "same_point", whether B
// converged where A did (and where A did not).
type CompareSpec struct {
	Name, Kind, A, B string
	Same             float64 // the largest belief difference of one point
	Stationary       float64 // fixed_points: the largest Bethe residual of a stationary point
}

// compare records the reader's comparisons of m's runs among mo's facts.
func (s *Reader) compare(mo *Fact, m *ScoredModel) {
	for _, c := range s.Compare {
		a, b := m.Runs[c.A], m.Runs[c.B]
		if a == nil || b == nil || a.Est == nil || b.Est == nil {
			continue
		}
		if c.Kind == "same_point" {
			c.samePoint(m, a, b, mo)
		} else {
			c.fixedPoints(m, a, b, mo)
		}
	}
}

// fixedPoints records whether A and B converged, to one point or two,
// and whether each is stationary (_conv_a, _distance, _f_a, _res_a, ...
// as counts and 0/1 facts).
func (c CompareSpec) fixedPoints(m *ScoredModel, a, b *ScoredRun, mo *Fact) {
	ma, mb := m.Answer(a), m.Answer(b)
	f, ok := metrics.CompareFixedPoints(m.Model, ma, mb, c.Same)
	if !ok {
		return
	}
	convA, convB := a.Est.Converged, b.Est.Converged
	statA, statB := convA && f.ResidualA <= c.Stationary, convB && f.ResidualB <= c.Stationary
	for name, v := range map[string]float64{
		"converged": b2f(convA) + b2f(convB), "stationary": b2f(statA) + b2f(statB),
		"conv_a": b2f(convA), "conv_b": b2f(convB), "res_a": f.ResidualA, "res_b": f.ResidualB,
		"distance": f.Distance, "f_a": ma.F, "f_b": mb.F, "both": b2f(f.Both), "same": b2f(f.Both && !f.Different),
		"different": b2f(f.Different), "b_higher": b2f(f.BHigher), "lower_f_better": b2f(f.LowerFBetter),
	} {
		mo.Num[c.Name+"_"+name] = v
	}
}

// samePoint records whether B converged at A's point where A converged,
// and converged where A did not; the models where it did not are named
// (_miss).
func (c CompareSpec) samePoint(m *ScoredModel, a, b *ScoredRun, mo *Fact) {
	set := func(name string, v bool) { mo.Num[c.Name+"_"+name] = b2f(v) }
	miss := func(why string) { mo.Text[c.Name+"_miss"] = m.Info.Name + " (" + why + ")" }
	convA, convB := a.Est.Converged, b.Est.Converged
	for name, v := range map[string]bool{"models": true, "a_converged": convA, "a_not": !convA, "rescued": !convA && convB, "same": false} {
		set(name, v)
	}
	if !convA {
		if !convB {
			miss("neither converged")
		}
		return
	}
	d, ok := metrics.BeliefDistance(m.Answer(a).Beliefs, m.Answer(b).Beliefs)
	if ok {
		mo.Num[c.Name+"_distance"] = d
	}
	switch {
	case !convB:
		miss(c.A + " converged, " + c.B + " did not")
	case !ok:
		miss("beliefs missing")
	case d > c.Same:
		miss("another point: |Δb| " + strconv.FormatFloat(d, 'e', 0, 64))
	default:
		set("same", true)
	}
}
