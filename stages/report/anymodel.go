package report

// The section "Any model, within a budget": method auto against every
// single method given the same time budget (pipeline.anymodel.toml), on
// models of the UAI competitions' kinds, scored against exact inference.
// It reads the score stages named score_budget<seconds> of its config, the
// estimates of their predictions (auto's certificates) and of their truth
// (exact inference's seconds); report --anymodel prints it.

import (
	"errors"
	"fmt"
	"github.com/renn-go/renn/core/methods"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/pipeline"
)

// AnyModelPrefix begins the name of the section's score stages; the budget
// in seconds follows.
const AnyModelPrefix = "score_budget"

// AnyModelAnchor is the Markdown anchor of the section.
const AnyModelAnchor = "any-model-within-a-budget"

// The methods of auto, as the section's config names them: auto itself,
// and auto with exact=false under the name auto-approx.
const (
	autoMethod   = "auto"
	approxMethod = "auto-approx"
)

// anyModelFamilies label the model families by the prefix of their names
// (up to the first digit), in the section's row order.
var anyModelFamilies = []struct{ prefix, label string }{
	{"grid", "spin glass, grid"}, {"torus", "spin glass, torus"}, {"bipartite", "RBM"},
	{"csp", "soft CSP"}, {"noisy-or", "noisy-OR, evidence"}, {"pedigree", "pedigree, evidence"},
	{"linkage", "genetic linkage, evidence"}, {"potts", "Potts"},
}

// AnyModelParams say which config the section reads and how it was made.
type AnyModelParams struct {
	Config  string // the pipeline config (pipeline.anymodel.toml)
	Command string // printed under the section
}

// amModel is one model of a budget's runs.
type amModel struct {
	id     int32
	name   string
	family string
	exact  float64 // exact inference's seconds (NaN if it has no exact answer)
}

// amKey is a (model, method) run.
type amKey struct {
	id     int32
	method string
}

// budgetRuns are one budget's results.
type budgetRuns struct {
	stage   string
	budget  float64
	models  []amModel
	methods []string                     // autos first, then the single methods in display order
	values  map[amKey]map[string]float64 // metric values from scores.parquet
	certs   map[amKey]string             // certificates from the predictions' estimates
}

// AnyModelSection returns the section in Markdown from the score stages
// score_budget<seconds> of p.Config that have run.
func AnyModelSection(p AnyModelParams) (string, error) {
	plan, err := pipeline.Load(p.Config)
	if err != nil {
		return "", err
	}
	var runs []*budgetRuns
	for _, inst := range plan.Instances {
		secs, ok := strings.CutPrefix(inst.Stage.Name, AnyModelPrefix)
		if !ok {
			continue
		}
		budget, err := strconv.ParseFloat(secs, 64)
		if err != nil || !(budget > 0) {
			return "", fmt.Errorf("%s: stage %s: want %s<seconds>", p.Config, inst.Stage.Name, AnyModelPrefix)
		}
		br, err := readBudget(inst, budget)
		if err != nil {
			return "", err
		}
		if br != nil {
			runs = append(runs, br)
		}
	}
	slices.SortFunc(runs, func(a, b *budgetRuns) int { return int(a.budget - b.budget) })
	return anyModelMarkdown(runs, p.Command), nil
}

// readBudget reads the runs of score stage inst: nil if it has not run.
func readBudget(inst *pipeline.Instance, budget float64) (*budgetRuns, error) {
	path := filepath.Join(inst.OutDir, formats.ScoresFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	rows, _, err := formats.ReadScores(path)
	if err != nil {
		return nil, err
	}
	br := &budgetRuns{stage: inst.Stage.Name, budget: budget, values: map[amKey]map[string]float64{}, certs: map[amKey]string{}}
	seen := map[int32]bool{}
	for _, r := range rows {
		k := amKey{r.ModelID, r.Method}
		if br.values[k] == nil {
			br.values[k] = map[string]float64{}
		}
		br.values[k][r.Metric] = r.Value
		if !seen[r.ModelID] {
			seen[r.ModelID] = true
			br.models = append(br.models, amModel{id: r.ModelID, name: r.Name, family: familyLabel(r.Name), exact: math.NaN()})
		}
		if !slices.Contains(br.methods, r.Method) {
			br.methods = append(br.methods, r.Method)
		}
	}
	slices.SortFunc(br.models, func(a, b amModel) int { return int(a.id) - int(b.id) })
	slices.SortFunc(br.methods, amMethodCompare)
	return br, br.readInputs(inst)
}

// readInputs adds the certificates of the predictions and exact inference's
// seconds from the truth.
func (br *budgetRuns) readInputs(inst *pipeline.Instance) error {
	exact := map[int32]float64{}
	for _, in := range inst.Inputs {
		if in.From == nil || in.Flag != "pred" && in.Flag != "truth" {
			continue
		}
		path := filepath.Join(in.From.OutDir, formats.EstimatesFile)
		est, _, err := formats.ReadEstimates(path)
		if err != nil {
			return err
		}
		for _, e := range est {
			switch {
			case in.Flag == "truth" && e.Method == "exact":
				exact[e.ModelID] = e.Seconds
			case in.Flag == "pred" && e.Certificate != "":
				br.certs[amKey{e.ModelID, e.Method}] = e.Certificate
			}
		}
	}
	for i := range br.models {
		if s, ok := exact[br.models[i].id]; ok {
			br.models[i].exact = s
		}
	}
	return nil
}

// familyLabel returns the family of a model by its name's prefix.
func familyLabel(name string) string {
	prefix := strings.TrimRight(name[:strings.IndexFunc(name+"0", isDigit)], "-_")
	for _, f := range anyModelFamilies {
		if f.prefix == prefix {
			return f.label
		}
	}
	return prefix
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// familyRank orders family labels: the known ones in their order, then the
// others alphabetically.
func familyRank(label string) int {
	for i, f := range anyModelFamilies {
		if f.label == label {
			return i
		}
	}
	return len(anyModelFamilies)
}

// amMethodCompare puts auto and auto-approx first, then the display order.
func amMethodCompare(a, b string) int {
	ra, rb := slices.Index([]string{autoMethod, approxMethod}, a), slices.Index([]string{autoMethod, approxMethod}, b)
	switch {
	case ra >= 0 && rb >= 0:
		return ra - rb
	case ra >= 0:
		return -1
	case rb >= 0:
		return 1
	}
	if methods.Compare(a, b) < 0 {
		return -1
	}
	if methods.Compare(b, a) < 0 {
		return 1
	}
	return 0
}

// single reports whether method is a single method (not auto).
func single(method string) bool { return method != autoMethod && method != approxMethod }

// families returns the family labels of br's models in row order.
func (br *budgetRuns) families() []string {
	var out []string
	for _, m := range br.models {
		if !slices.Contains(out, m.family) {
			out = append(out, m.family)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		if d := familyRank(a) - familyRank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}

// value returns a run's metric, and whether it has one.
func (br *budgetRuns) value(id int32, method, metric string) (float64, bool) {
	v, ok := br.values[amKey{id, method}][metric]
	return v, ok && !math.IsNaN(v)
}

// bestSingle returns the smallest value of metric among the single methods
// on model id, and the method; ok is false if none has one.
func (br *budgetRuns) bestSingle(id int32, metric string) (best float64, method string, ok bool) {
	best = math.Inf(1)
	for _, m := range br.methods {
		if v, has := br.value(id, m, metric); single(m) && has && v < best {
			best, method, ok = v, m, true
		}
	}
	return best, method, ok
}
