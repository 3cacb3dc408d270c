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
// model, or, with method "", of the model itself (its exact ln Z, its
// shape, comparisons between its runs). A summary cell (a score stage's
// mean over a setting) is an obs too, its spread in num[metric+"_std"]
// and its count in num[metric+"_n"].
type obs struct {
	part   string // the section part (stage prefix) it was read from
	stage  string // the stage that scored or ran it
	set    *group
	model  string
	method string
	seed   string
	num    map[string]float64
	text   map[string]string
	curve  []float64 // learning runs: test NLL per epoch
	secs   []float64 // learning runs: seconds per epoch
}

func newObs(part, stage string, set *group, model, method string) *obs {
	return &obs{part: part, stage: stage, set: set, model: model, method: method, num: map[string]float64{}, text: map[string]string{}}
}

// group is a setting: the models a row of a table averages over.
type group struct {
	part       string // the section part it was read from
	family     string // the family of a summaries section
	key, label string
	graph      string
	size       int // number of variables
	gamma      float64
	hidden     int // hidden variables of its models
}

// paperSetting is a setting of the paper's families: graph, size, gamma.
func paperSetting(graph string, size int, gamma float64) *group {
	label := fmt.Sprintf("%s n=%d γ=%s", graph, size, strconv.FormatFloat(gamma, 'g', -1, 64))
	return &group{key: label, label: label, graph: graph, size: size, gamma: gamma}
}

// dataset is what a section read: its runs and how they are ordered.
type dataset struct {
	obs      []*obs
	settings []*group  // in the order the tables show them
	methods  []string  // the columns, in the order the tables show them
	models   []string  // in the order first read
	parts    []*part   // the stage prefixes read
	families []*family // the score stages of a summaries section
	index    map[obsKey][]*obs
	byKey    map[string]*group
	bySet    map[*group][]*obs
	modelSet map[*group][]string
}

type obsKey struct {
	set           *group
	model, method string
}

// part is what a section reads from the stages whose names begin with one
// prefix.
type part struct {
	prefix    string
	instances int      // learn-mrf or method instances read
	done      int      // method instances completed (cost sections)
	stages    []string // the stages read, in plan order
	notRun    []string // their instances that have not run
	rt        RunTime  // of every instance of the prefix's stages
	statusErr error
}

// setting returns the dataset's group of key, adding it (made by mk) at
// the end of the order.
func (d *dataset) setting(key string, mk func() *group) *group {
	if d.byKey == nil {
		d.byKey = map[string]*group{}
	}
	g := d.byKey[key]
	if g == nil {
		g = mk()
		d.byKey[key] = g
		d.settings = append(d.settings, g)
	}
	return g
}

// add records o.
func (d *dataset) add(o *obs) *obs {
	d.obs = append(d.obs, o)
	d.index = nil
	if o.method != "" && !slices.Contains(d.methods, o.method) {
		d.methods = append(d.methods, o.method)
	}
	if o.model != "" && !slices.Contains(d.models, o.model) {
		d.models = append(d.models, o.model)
	}
	return o
}

// find returns the obs of (set, model, method), nil set or "" model
// matching any; method "" is the model's own facts.
func (d *dataset) find(set *group, model, method string) []*obs {
	if d.index == nil {
		d.reindex()
	}
	return d.index[obsKey{set, model, method}]
}

func (d *dataset) reindex() {
	d.index = map[obsKey][]*obs{}
	d.bySet = map[*group][]*obs{}
	d.modelSet = map[*group][]string{}
	for _, o := range d.obs {
		keys := []obsKey{{o.set, o.model, o.method}, {nil, o.model, o.method}, {o.set, "", o.method}, {nil, "", o.method}}
		for i, k := range keys {
			if !slices.Contains(keys[:i], k) {
				d.index[k] = append(d.index[k], o)
			}
		}
		d.bySet[o.set] = append(d.bySet[o.set], o)
		if o.model != "" && !slices.Contains(d.modelSet[o.set], o.model) {
			d.modelSet[o.set] = append(d.modelSet[o.set], o.model)
		}
	}
}

// modelsOf are the models of set (nil: all), in the order read.
func (d *dataset) modelsOf(set *group) []string {
	if set == nil {
		return d.models
	}
	if d.index == nil {
		d.reindex()
	}
	return d.modelSet[set]
}

// sortMethods orders the columns as the registry does.
func (d *dataset) sortMethods() { slices.SortFunc(d.methods, methods.Compare) }

// aggregate is the aggregate agg of fact name over obs: mean, max (NaN if
// any is NaN), min, sum, count, rms (root mean square; of a summary cell,
// from its mean and std), n (models counted), std; ok is false when no obs
// has it.
func aggregate(obs []*obs, name, agg string) (float64, bool) {
	var xs []float64
	summary := false
	for _, o := range obs {
		if v, ok := o.num[name]; ok {
			xs = append(xs, v)
			if _, s := o.num[name+"_n"]; s {
				summary = true
			}
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	switch agg {
	case "mean":
		return metrics.Summarize(xs).Mean, true
	case "max":
		return nanMax(xs), true
	case "min":
		return slices.Min(xs), true
	case "sum":
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s, true
	case "count":
		return float64(len(xs)), true
	case "std":
		if summary {
			return aggregate(obs, name+"_std", "mean")
		}
		return metrics.Summarize(xs).Std, true
	case "n":
		if summary {
			return aggregate(obs, name+"_n", "sum")
		}
		return float64(len(xs)), true
	case "rms":
		if summary && len(obs) == 1 {
			return math.Hypot(xs[0], obs[0].num[name+"_std"]), true
		}
		return metrics.RootMeanSquare(xs), true
	}
	panic("unknown aggregate " + agg) // declarations are checked when parsed
}

// aggregates are the names aggregate knows.
var aggregates = []string{"mean", "max", "min", "sum", "count", "std", "n", "rms"}

// nanMax is the largest of xs, NaN if one is NaN.
func nanMax(xs []float64) float64 {
	v := math.Inf(-1)
	for _, x := range xs {
		if math.IsNaN(x) {
			return math.NaN()
		}
		v = max(v, x)
	}
	return v
}

// firstText is the first obs's text fact name.
func firstText(obs []*obs, name string) (string, bool) {
	for _, o := range obs {
		if t, ok := o.text[name]; ok {
			return t, true
		}
	}
	return "", false
}

// Name is the setting's label, for the sections' text.
func (g *group) Name() string { return g.label }

// Hidden is how many hidden variables the setting's models have.
func (g *group) Hidden() int { return g.hidden }

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
