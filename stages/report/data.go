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
	Part, Stage   string // the section part and the stage it was read from
	Set           *group
	Model, Method string
	Seed          string
	Num           map[string]float64
	Text          map[string]string
	Curve, Secs   []float64 // learning runs: test NLL and seconds per epoch
}

func newObs(part, stage string, set *group, model, method string) *obs {
	return &obs{Part: part, Stage: stage, Set: set, Model: model, Method: method, Num: map[string]float64{}, Text: map[string]string{}}
}

// group is a setting: the models a row of a table averages over.
type group struct {
	Key, Label, Graph string
	Family            string // the score stage of a summaries section
	Size, Hidden      int    // variables, of them hidden
	Gamma             float64
}

// paperSetting is a setting of the paper's families: graph, size, gamma.
func paperSetting(graph string, size int, gamma float64) *group {
	label := fmt.Sprintf("%s n=%d γ=%s", graph, size, strconv.FormatFloat(gamma, 'g', -1, 64))
	return &group{Key: label, Label: label, Graph: graph, Size: size, Gamma: gamma}
}

// Name is the setting's label, for text.
func (g *group) Name() string { return g.Label }

// less orders settings as the paper does: grids before complete graphs,
// then by size and gamma.
func (g *group) less(h *group) bool {
	if g.Graph != h.Graph {
		return g.Graph > h.Graph
	}
	if g.Size != h.Size {
		return g.Size < h.Size
	}
	return g.Gamma < h.Gamma
}

// dataset is what a section read: its runs and how they are ordered.
type dataset struct {
	Obs      []*obs
	Settings []*group  // in the order the tables show them
	Methods  []string  // the columns, in registry order
	Models   []string  // in the order first read
	parts    []*part   // the stage groups read
	Families []*family // the score stages of a summaries section
	ByKey    map[string]*group
	index    map[obsKey][]*obs
	BySet    map[*group][]*obs
	modelSet map[*group][]string
}

type obsKey struct {
	set           *group
	model, method string
}

// part is what a section read from the stages of one pattern.
type part struct {
	Prefix          string
	Instances, Done int      // learn-mrf or method instances read, completed
	Stages, NotRun  []string // the stages read; their instances not run
	RT              runTime  // of every instance of the pattern's stages
	StatusErr       error
}

// Setting returns the group of key, made by mk at the end of the order.
func (d *dataset) Setting(key string, mk func() *group) *group {
	if d.ByKey == nil {
		d.ByKey = map[string]*group{}
	}
	if d.ByKey[key] == nil {
		d.ByKey[key] = mk()
		d.Settings = append(d.Settings, d.ByKey[key])
	}
	return d.ByKey[key]
}

// Add records o, indexing it by setting, model and method.
func (d *dataset) Add(o *obs) *obs {
	if d.index == nil {
		d.index, d.BySet, d.modelSet = map[obsKey][]*obs{}, map[*group][]*obs{}, map[*group][]string{}
	}
	d.Obs = append(d.Obs, o)
	keys := []obsKey{{o.Set, o.Model, o.Method}, {nil, o.Model, o.Method}, {o.Set, "", o.Method}, {nil, "", o.Method}}
	for i, k := range keys {
		if !slices.Contains(keys[:i], k) {
			d.index[k] = append(d.index[k], o)
		}
	}
	d.BySet[o.Set] = append(d.BySet[o.Set], o)
	if o.Method != "" && !slices.Contains(d.Methods, o.Method) {
		d.Methods = append(d.Methods, o.Method)
	}
	if o.Model != "" && !slices.Contains(d.Models, o.Model) {
		d.Models = append(d.Models, o.Model)
	}
	if o.Model != "" && !slices.Contains(d.modelSet[o.Set], o.Model) {
		d.modelSet[o.Set] = append(d.modelSet[o.Set], o.Model)
	}
	return o
}

// Find returns the obs of (set, model, method), a nil set or "" model
// matching any; method "" is the models' own facts.
func (d *dataset) Find(set *group, model, method string) []*obs {
	return d.index[obsKey{set, model, method}]
}

// ModelsOf are the models of set (nil: all), in the order read.
func (d *dataset) ModelsOf(set *group) []string {
	if set == nil {
		return d.Models
	}
	return d.modelSet[set]
}

func (d *dataset) SortMethods() { slices.SortFunc(d.Methods, methods.Compare) }

// aggregates are what a cell can make of a fact over runs.
var aggregates = []string{"mean", "std", "max", "min", "sum", "count", "n", "rms"}

// aggregate is an aggregate of fact over obs: mean, std (population; of a
// summary cell, its own), max (NaN if any is),
// min, sum, count, n (models: a summary cell's count), rms (root mean
// square; of a summary cell, from its mean and std); ok is false when no
// obs has the fact.
func aggregate(obs []*obs, fact, agg string) (float64, bool) {
	var xs []float64
	summary := false
	for _, o := range obs {
		if v, ok := o.Num[fact]; ok {
			xs = append(xs, v)
			_, n := o.Num[fact+"_n"]
			summary = summary || n
		}
	}
	switch {
	case len(xs) == 0:
		return 0, false
	case agg == "mean":
		return metrics.Summarize(xs).Mean, true
	case agg == "std" && summary && len(obs) == 1:
		return obs[0].Num[fact+"_std"], true
	case agg == "std":
		return metrics.Summarize(xs).Std, true
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
		return math.Hypot(xs[0], obs[0].Num[fact+"_std"]), true
	}
	return metrics.RootMeanSquare(xs), true
}

// firstText is the first obs's text fact.
func firstText(obs []*obs, fact string) (string, bool) {
	for _, o := range obs {
		if t, ok := o.Text[fact]; ok {
			return t, true
		}
	}
	return "", false
}
