package outputs

// Stage outputs as facts: what the report knows of each run, read by a
// Reader from the instances of a pipeline into a Store.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/metrics"
)

// Fact is what is known of one run: one method (a column) on one model;
// with method "", of the model itself (exact ln Z, shape, comparisons of
// its runs). A summary cell (a score stage's mean over a setting) is one
// too, its std and count in Num[fact+"_std"], Num[fact+"_n"].
type Fact struct {
	Part, Stage   string // the part of the reader and the stage it was read from
	Set           *Setting
	Model, Method string
	Num           map[string]float64
	Text          map[string]string
	Run           *metrics.LearningRun // of a learning run: its seed, test NLL and seconds per epoch
}

// NewFact is an empty fact of a run.
func NewFact(part, stage string, set *Setting, model, method string) *Fact {
	return &Fact{Part: part, Stage: stage, Set: set, Model: model, Method: method, Num: map[string]float64{}, Text: map[string]string{}}
}

// Setting is the models a row of a table averages over.
type Setting struct {
	Key, Label, Graph string
	Family            string // the score stage of a summaries section
	Size, Hidden      int    // variables, of them hidden
	Gamma             float64
}

// SettingOf is a setting of the paper's families: graph, size, gamma.
func SettingOf(graph string, size int, gamma float64) *Setting {
	label := fmt.Sprintf("%s n=%d γ=%s", graph, size, strconv.FormatFloat(gamma, 'g', -1, 64))
	return &Setting{Key: label, Label: label, Graph: graph, Size: size, Gamma: gamma}
}

// Store holds facts, indexed by setting.
type Store struct {
	Obs      []*Fact
	Settings []*Setting // in the order the tables show them
	Methods  []string   // the columns, in registry order
	Models   []string   // in the order first read
	Families []*Family  // the score stages of a summaries section
	ByKey    map[string]*Setting
	BySet    map[*Setting][]*Fact
	modelSet map[*Setting][]string
}

// Setting returns the setting of key, made by mk at the end of the order.
func (d *Store) Setting(key string, mk func() *Setting) *Setting {
	if d.ByKey == nil {
		d.ByKey = map[string]*Setting{}
	}
	if d.ByKey[key] == nil {
		d.ByKey[key] = mk()
		d.Settings = append(d.Settings, d.ByKey[key])
	}
	return d.ByKey[key]
}

// Add records o, indexing it by setting, model and method.
func (d *Store) Add(o *Fact) *Fact {
	if d.BySet == nil {
		d.BySet, d.modelSet = map[*Setting][]*Fact{}, map[*Setting][]string{}
	}
	d.Obs = append(d.Obs, o)
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

// Find returns the facts of (set, model, method), a nil set or "" model
// matching any; method "" is the models' own facts.
func (d *Store) Find(set *Setting, model, method string) []*Fact {
	return d.FindIn(nil, set, model, method)
}

// FindIn are the facts of (set, model, method), as Find, of parts (nil:
// any).
func (d *Store) FindIn(parts []string, set *Setting, model, method string) []*Fact {
	from := d.Obs
	if set != nil {
		from = d.BySet[set]
	}
	var out []*Fact
	for _, o := range from {
		if o.Method == method && (model == "" || o.Model == model) && (parts == nil || slices.Contains(parts, o.Part)) {
			out = append(out, o)
		}
	}
	return out
}

// ModelsOf are the models of set (nil: all), in the order read.
func (d *Store) ModelsOf(set *Setting) []string {
	if set == nil {
		return d.Models
	}
	return d.modelSet[set]
}

// SortMethods orders the methods as the registry does.
func (d *Store) SortMethods() { slices.SortFunc(d.Methods, methods.Compare) }

// SortSettings orders the settings: "paper" (as the paper does: grids
// before complete graphs, then by size and gamma), "size" (by graph,
// size), else as read.
func (d *Store) SortSettings(order string) {
	slices.SortStableFunc(d.Settings, func(x, y *Setting) int {
		switch {
		case order == "size" && x.Graph != y.Graph:
			return strings.Compare(x.Graph, y.Graph)
		case order != "paper" && order != "size":
			return 0
		case x.Graph != y.Graph:
			return strings.Compare(y.Graph, x.Graph)
		case x.Size != y.Size || order == "size":
			return x.Size - y.Size
		}
		return cmp.Compare(x.Gamma, y.Gamma)
	})
}

// AutoRegions records on every model the region scheme its first run on
// auto regions used (a column without a scheme of its own, in method
// order), as text fact auto_regions.
func (d *Store) AutoRegions() {
	for _, mo := range d.Find(nil, "", "") {
		for _, col := range d.Methods {
			if t, ok := FirstText(d.Find(mo.Set, mo.Model, col), "regions"); ok && !strings.Contains(col, " (") {
				mo.Text["auto_regions"] = t
				break
			}
		}
	}
}

// Progress is what was read from the stages of one pattern.
type Progress struct {
	Prefix          string
	Instances, Done int      // learn-mrf or method instances read, completed
	Stages, NotRun  []string // the stages read; their instances not run
}

// Instance is one run of a stage binary, as the runner planned it.
type Instance struct {
	ID, Stage, OutDir string
	Binary            string                 // the binary it runs (score, learn-mrf, ...)
	Flags             map[string]string      // the stage's flags
	Shard             map[string]string      // the values naming its shard
	Inputs            map[string][]*Instance // the upstream instances given to a flag, by flag
}

// InputOf is the first instance given to flag, or nil.
func (inst *Instance) InputOf(flag string) *Instance {
	if in := inst.Inputs[flag]; len(in) > 0 {
		return in[0]
	}
	return nil
}

// Usage is what a completed instance's process used (its stamp).
type Usage struct {
	Seconds, CPUSeconds float64
	MaxRSSKiB           int64
}

// ReadSpec is what a report section declares of what to read.
type ReadSpec struct {
	// Parts are the stage groups read: the stages whose names begin with a
	// prefix ("hidden_"), or begin and end as a pattern ("hidden_*_long").
	// A stage belongs to the last part that matches it; a part's run time
	// counts every stage that matches it.
	Parts []string
	// Columns names a run's column: "method", or "method+scheme": a run on
	// regions of a scheme other than auto is a column of its own.
	Columns string
	Labels  string   // "side": settings of a summaries section named 10x10; "shape": of a scores section by their models' kind and shape (shapeLabel), ordered by kind
	Beliefs []string // methods whose marginals are read, for Compare
	// Compare are the comparisons of two methods' answers recorded on
	// every scored model, once its runs are read.
	Compare []CompareSpec
	Cost    CostSpec
}

// Reader reads the outputs of a pipeline's instances into a Store, as a
// report section declares (ReadSpec).
type Reader struct {
	*Store
	ReadSpec
	Insts  []*Instance // the pipeline's instances, in dependency order
	CfgDir string      // the config's directory (relative data paths start here)
	// Usage reads a completed instance's stamp (fs.ErrNotExist: not run).
	Usage func(outDir string) (Usage, error)

	samplesRead map[string]bool
}

// Of returns the instances of the named stage.
func (s *Reader) Of(stage string) []*Instance {
	return slices.DeleteFunc(slices.Clone(s.Insts), func(inst *Instance) bool { return inst.Stage != stage })
}

// MatchPart reports whether stage is of the part pattern: it begins with
// the prefix ("hidden_"), or begins and ends as the pattern
// ("hidden_*_long").
func MatchPart(stage, pattern string) bool {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	return strings.HasPrefix(stage, prefix) && strings.HasSuffix(stage, suffix)
}

// HasPrefix reports whether s matches one of the part patterns.
func HasPrefix(s string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return MatchPart(s, p) })
}

// Stages lists the names of the stages of insts that run binary ("" any),
// in plan order.
func Stages(insts []*Instance, binary string) []string {
	var out []string
	for _, inst := range insts {
		if (binary == "" || inst.Binary == binary) && !slices.Contains(out, inst.Stage) {
			out = append(out, inst.Stage)
		}
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
