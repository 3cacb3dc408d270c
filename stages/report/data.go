package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
)

// obs is what the report knows of one run: one method (a column) on one
// model; with method "", of the model itself (exact ln Z, shape,
// comparisons of its runs). A summary cell (a score stage's mean over a
// setting) is one too, its std and count in num[fact+"_std"], [fact+"_n"].
type obs struct {
	part, stage   string // the section part and the stage it was read from
	set           *group
	model, method string
	seed          string
	num           map[string]float64
	text          map[string]string
	curve, secs   []float64 // learning runs: test NLL and seconds per epoch
}

func newObs(part, stage string, set *group, model, method string) *obs {
	return &obs{part: part, stage: stage, set: set, model: model, method: method, num: map[string]float64{}, text: map[string]string{}}
}

// group is a setting: the models a row of a table averages over.
type group struct {
	key, label, graph string
	family            string // the score stage of a summaries section
	size, hidden      int    // variables, of them hidden
	gamma             float64
}

// paperSetting is a setting of the paper's families: graph, size, gamma.
func paperSetting(graph string, size int, gamma float64) *group {
	label := fmt.Sprintf("%s n=%d γ=%s", graph, size, strconv.FormatFloat(gamma, 'g', -1, 64))
	return &group{key: label, label: label, graph: graph, size: size, gamma: gamma}
}

// Name and Hidden are the setting's label and hidden variables, for text.
func (g *group) Name() string { return g.label }
func (g *group) Hidden() int  { return g.hidden }

// less orders settings as the paper does: grids before complete graphs,
// then by size and gamma.
func (g *group) less(h *group) bool {
	if g.graph != h.graph {
		return g.graph > h.graph
	}
	if g.size != h.size {
		return g.size < h.size
	}
	return g.gamma < h.gamma
}

// dataset is what a section read: its runs and how they are ordered.
type dataset struct {
	obs      []*obs
	settings []*group  // in the order the tables show them
	methods  []string  // the columns, in registry order
	models   []string  // in the order first read
	parts    []*part   // the stage groups read
	families []*family // the score stages of a summaries section
	byKey    map[string]*group
	index    map[obsKey][]*obs
	bySet    map[*group][]*obs
	modelSet map[*group][]string
}

type obsKey struct {
	set           *group
	model, method string
}

// part is what a section read from the stages of one pattern.
type part struct {
	prefix          string
	instances, done int      // learn-mrf or method instances read, completed
	stages, notRun  []string // the stages read; their instances not run
	rt              RunTime  // of every instance of the pattern's stages
	statusErr       error
}

// Part accessors, for the sections' text.
func (p *part) Prefix() string   { return p.prefix }
func (p *part) Stages() []string { return p.stages }
func (p *part) NotRun() []string { return p.notRun }
func (p *part) RT() RunTime      { return p.rt }
func (p *part) StatusErr() error { return p.statusErr }
func (p *part) Instances() int   { return p.instances }
func (p *part) Done() int        { return p.done }

// setting returns the group of key, made by mk at the end of the order.
func (d *dataset) setting(key string, mk func() *group) *group {
	if d.byKey == nil {
		d.byKey = map[string]*group{}
	}
	if d.byKey[key] == nil {
		d.byKey[key] = mk()
		d.settings = append(d.settings, d.byKey[key])
	}
	return d.byKey[key]
}

// add records o, indexing it by setting, model and method.
func (d *dataset) add(o *obs) *obs {
	if d.index == nil {
		d.index, d.bySet, d.modelSet = map[obsKey][]*obs{}, map[*group][]*obs{}, map[*group][]string{}
	}
	d.obs = append(d.obs, o)
	keys := []obsKey{{o.set, o.model, o.method}, {nil, o.model, o.method}, {o.set, "", o.method}, {nil, "", o.method}}
	for i, k := range keys {
		if !slices.Contains(keys[:i], k) {
			d.index[k] = append(d.index[k], o)
		}
	}
	d.bySet[o.set] = append(d.bySet[o.set], o)
	if o.method != "" && !slices.Contains(d.methods, o.method) {
		d.methods = append(d.methods, o.method)
	}
	if o.model != "" && !slices.Contains(d.models, o.model) {
		d.models = append(d.models, o.model)
	}
	if o.model != "" && !slices.Contains(d.modelSet[o.set], o.model) {
		d.modelSet[o.set] = append(d.modelSet[o.set], o.model)
	}
	return o
}

// find returns the obs of (set, model, method), a nil set or "" model
// matching any; method "" is the models' own facts.
func (d *dataset) find(set *group, model, method string) []*obs {
	return d.index[obsKey{set, model, method}]
}

// modelsOf are the models of set (nil: all), in the order read.
func (d *dataset) modelsOf(set *group) []string {
	if set == nil {
		return d.models
	}
	return d.modelSet[set]
}

func (d *dataset) sortMethods() { slices.SortFunc(d.methods, methods.Compare) }

// aggregates are what a cell can make of a fact over runs.
var aggregates = []string{"mean", "max", "min", "sum", "count", "n", "rms"}

// aggregate is an aggregate of fact over obs: mean, max (NaN if any is),
// min, sum, count, n (models: a summary cell's count), rms (root mean
// square; of a summary cell, from its mean and std); ok is false when no
// obs has the fact.
func aggregate(obs []*obs, fact, agg string) (float64, bool) {
	var xs []float64
	summary := false
	for _, o := range obs {
		if v, ok := o.num[fact]; ok {
			xs = append(xs, v)
			_, n := o.num[fact+"_n"]
			summary = summary || n
		}
	}
	switch {
	case len(xs) == 0:
		return 0, false
	case agg == "mean":
		return metrics.Summarize(xs).Mean, true
	case agg == "max":
		if slices.ContainsFunc(xs, math.IsNaN) {
			return math.NaN(), true
		}
		return slices.Max(xs), true
	case agg == "min":
		return slices.Min(xs), true
	case agg == "sum":
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum, true
	case agg == "n" && summary:
		return aggregate(obs, fact+"_n", "sum")
	case agg == "count" || agg == "n":
		return float64(len(xs)), true
	case agg == "rms" && summary && len(obs) == 1:
		return math.Hypot(xs[0], obs[0].num[fact+"_std"]), true
	}
	return metrics.RootMeanSquare(xs), true
}

// firstText is the first obs's text fact.
func firstText(obs []*obs, fact string) (string, bool) {
	for _, o := range obs {
		if t, ok := o.text[fact]; ok {
			return t, true
		}
	}
	return "", false
}
