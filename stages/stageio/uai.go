package stageio

import (
	"fmt"
	"math"
	"strings"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
)

// UAIName is the base of a model's UAI result file names: its name without
// a trailing ".uai", so an imported model foo.uai gets foo.uai.MAR. It must
// be a plain file name.
func UAIName(in mrf.Info) (string, error) {
	name := strings.TrimSuffix(in.Name, ".uai")
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("model name %q cannot name a UAI result file", in.Name)
	}
	return name, nil
}

// UAIOutputs returns the outputs that write every model's result, as found
// in a stage's marginal and estimate rows, as UAI competition files
// <name>.uai.MAR and <name>.uai.PR in dir, or in dir/<method>/ when byMethod
// (run-baselines, which runs several methods). It returns nil when dir is
// empty. The MAR file holds the variable marginals; a variable that the
// model's unary factors restrict to one state (evidence, as sample-model uai
// imports it) is written as that point mass, as UAI result files list
// observed variables. The PR file holds log10 Z = ln Z / ln 10.
func UAIOutputs(dir string, byMethod bool, models []Model, marg []formats.MarginalRow, est []formats.EstimateRow) ([]Output, error) {
	if dir == "" {
		return nil, nil
	}
	type key struct {
		id     int32
		method string
	}
	byID := make(map[int32]*Model, len(models))
	for i := range models {
		byID[models[i].ID] = &models[i]
	}
	vars := map[key][][]float64{}
	for _, r := range marg {
		m := byID[r.ModelID]
		if r.Kind != "var" || m == nil {
			continue
		}
		k := key{r.ModelID, r.Method}
		if vars[k] == nil {
			vars[k] = make([][]float64, len(m.Model.Cards))
		}
		if int(r.Index) < 0 || int(r.Index) >= len(m.Model.Cards) {
			return nil, fmt.Errorf("UAI output: model %d %s: marginal of variable %d, the model has %d", m.ID, r.Method, r.Index, len(m.Model.Cards))
		}
		vars[k][r.Index] = r.Probs
	}
	owner := map[string]int32{} // file name -> model id, to catch clashes
	var outs []Output
	for _, e := range est {
		m := byID[e.ModelID]
		if m == nil {
			return nil, fmt.Errorf("UAI output: estimate of unknown model %d", e.ModelID)
		}
		name, err := UAIName(m.Info)
		if err != nil {
			return nil, fmt.Errorf("UAI output: model %d: %w", m.ID, err)
		}
		if byMethod {
			if e.Method == "" || strings.ContainsAny(e.Method, `/\`) || e.Method == "." || e.Method == ".." {
				return nil, fmt.Errorf("UAI output: method name %q cannot name a directory", e.Method)
			}
			name = e.Method + "/" + name
		}
		if id, dup := owner[name]; dup {
			return nil, fmt.Errorf("UAI output: models %d and %d would both write %s.uai.MAR: give the models distinct names", id, m.ID, name)
		}
		owner[name] = m.ID
		mg := vars[key{e.ModelID, e.Method}]
		for v, c := range m.Model.Cards {
			if mg == nil || len(mg[v]) != c {
				return nil, fmt.Errorf("UAI output: model %d %s: no marginal of %d states for variable %d", m.ID, e.Method, c, v)
			}
		}
		mg = withEvidence(m.Model, mg)
		log10Z := e.LogZ / math.Ln10
		outs = append(outs,
			Output{Dir: dir, Name: name + ".uai." + formats.UAIResultMAR, Write: func(p string) error { return formats.WriteMARFile(p, mg) }},
			Output{Dir: dir, Name: name + ".uai." + formats.UAIResultPR, Write: func(p string) error { return formats.WritePRFile(p, log10Z) }},
		)
	}
	return outs, nil
}

// withEvidence returns mg with the marginal of every variable that m's unary
// factors restrict to a single state replaced by that point mass; mg itself
// is left as it was.
func withEvidence(m *mrf.Model, mg [][]float64) [][]float64 {
	allowed := make([][]bool, len(m.Cards))
	for _, f := range m.Factors {
		if len(f.Vars) != 1 {
			continue
		}
		v := f.Vars[0]
		if allowed[v] == nil {
			allowed[v] = make([]bool, m.Cards[v])
			for s := range allowed[v] {
				allowed[v][s] = true
			}
		}
		for s, l := range f.LogTable {
			if math.IsInf(l, -1) {
				allowed[v][s] = false
			}
		}
	}
	out, copied := mg, false
	for v, a := range allowed {
		only, n := -1, 0
		for s, ok := range a {
			if ok {
				only, n = s, n+1
			}
		}
		if n != 1 {
			continue
		}
		if !copied {
			out, copied = append([][]float64(nil), mg...), true
		}
		p := make([]float64, m.Cards[v])
		p[only] = 1
		out[v] = p
	}
	return out
}
