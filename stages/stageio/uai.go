package stageio

import (
	"fmt"
	"math"
	"path/filepath"
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

// UAIOut is where a stage writes its UAI result files (--uai-out) and the run
// they belong to.
//
// Every answer of method M on a model named N goes to Dir/M/N.uai.MAR
// (variable marginals) and Dir/M/N.uai.PR (log10 Z; none for a method that
// gives no estimate of ln Z, a sampler), whichever stage wrote it
// (exact-infer's method is "exact"). Each file begins with comment lines:
// first the answer's status (UAIStatus: converged, not converged, or failed
// its check, with the reason), then the run that wrote it, "renn run:
// stage=S out=\"P\" method=M", P being the stage's --out relative to the
// file's directory, and for an answer with a certificate (auto's) a third,
// "renn certificate: C". A run is its --out directory: a rerun of a stage into
// the same --out replaces its own files, and removes those of its models it
// no longer writes, but a file of another run (another --out), or one these
// tools did not write, is replaced only with Overwrite (Claim).
type UAIOut struct {
	Dir       string // --uai-out; "" writes no files
	Out       string // the stage's --out: the run the files belong to
	Stage     string // the stage's binary, recorded in the files
	Overwrite bool   // replace files of other runs
}

// Check refuses Overwrite without Dir: there is nothing to overwrite.
func (u UAIOut) Check() error {
	if u.Overwrite && u.Dir == "" {
		return fmt.Errorf("--overwrite replaces UAI result files of other runs, and needs --uai-out")
	}
	return nil
}

// uaiTarget is the pair of result files of one (model, method).
type uaiTarget struct {
	model  *Model
	method string
	name   string // the model's UAIName
}

// dir is the directory of t's files, base their path without the suffix.
func (u UAIOut) dir(method string) string { return filepath.Join(u.Dir, method) }
func (u UAIOut) base(t uaiTarget) string  { return filepath.Join(u.dir(t.method), t.name+".uai") }

// targets returns the result files of every model under every method, after
// checking that methods and model names can name them and that no two
// models share a name.
func targets(methods []string, models []Model) ([]uaiTarget, error) {
	var out []uaiTarget
	owner := map[string]int32{} // file name -> model id, to catch clashes
	seen := map[string]bool{}
	for _, method := range methods {
		if method == "" || strings.ContainsAny(method, `/\`) || method == "." || method == ".." || strings.ContainsRune(method, 0) {
			return nil, fmt.Errorf("UAI output: method name %q cannot name a directory", method)
		}
		if seen[method] {
			continue
		}
		seen[method] = true
		clear(owner)
		for i := range models {
			m := &models[i]
			name, err := UAIName(m.Info)
			if err != nil {
				return nil, fmt.Errorf("UAI output: model %d: %w", m.ID, err)
			}
			if id, dup := owner[name]; dup {
				return nil, fmt.Errorf("UAI output: models %d and %d would both write %s/%s.uai.MAR: give the models distinct names", id, m.ID, method, name)
			}
			owner[name] = m.ID
			out = append(out, uaiTarget{m, method, name})
		}
	}
	return out, nil
}

// Outputs returns the outputs that write every answer found in a stage's
// marginal and estimate rows as UAI result files, with the status of every
// answer (also when Dir is empty, for the stage's summary). methods are the
// method names the stage ran: a file of this run's previous run in one of
// their directories that this run does not write (a model no longer given,
// or whose run failed) is removed. Files of other runs are refused unless
// Overwrite (see Claim).
//
// The MAR file holds the variable marginals; a variable that the model's
// unary factors restrict to one state (evidence, as sample-model uai
// imports it) is written as that point mass, as UAI result files list
// observed variables. The PR file holds log10 Z = ln Z / ln 10.
func (u UAIOut) Outputs(methods []string, models []Model, marg []formats.MarginalRow, est []formats.EstimateRow) ([]Output, []UAIAnswer, error) {
	all, err := targets(methods, models)
	if err != nil {
		return nil, nil, err
	}
	tgt := make(map[uaiKey]uaiTarget, len(all))
	for _, t := range all {
		tgt[uaiKey{t.model.ID, t.method}] = t
	}
	vars, err := varMarginals(models, marg)
	if err != nil {
		return nil, nil, err
	}
	var outs []Output
	var answers []UAIAnswer
	var written []uaiTarget
	for _, e := range est {
		t, ok := tgt[uaiKey{e.ModelID, e.Method}]
		if !ok {
			return nil, nil, fmt.Errorf("UAI output: estimate of model %d by %s, not among the models and methods run", e.ModelID, e.Method)
		}
		a, mg, err := answer(t, e, vars[uaiKey{e.ModelID, e.Method}])
		if err != nil {
			return nil, nil, err
		}
		if u.Dir != "" {
			a.Base = u.base(t)
			o, err := u.answerOutputs(t, a, mg, e.LogZ/math.Ln10)
			if err != nil {
				return nil, nil, err
			}
			outs = append(outs, o...)
			written = append(written, t)
		}
		answers = append(answers, a)
	}
	if u.Dir == "" {
		return nil, answers, nil
	}
	if err := u.claim(written); err != nil {
		return nil, nil, err
	}
	stale, err := u.stale(methods, outs)
	if err != nil {
		return nil, nil, err
	}
	return append(outs, stale...), answers, nil
}

// answer judges estimate e of target t with variable marginals mg, and
// returns the marginals as the MAR file holds them (evidence as point
// masses).
func answer(t uaiTarget, e formats.EstimateRow, mg [][]float64) (UAIAnswer, [][]float64, error) {
	for v, c := range t.model.Model.Cards {
		if mg == nil || len(mg[v]) != c {
			return UAIAnswer{}, nil, fmt.Errorf("UAI output: model %d %s: no marginal of %d states for variable %d", t.model.ID, e.Method, c, v)
		}
	}
	mg = withEvidence(t.model.Model, mg)
	a := UAIAnswer{ModelID: t.model.ID, Model: t.model.Info.Name, Method: e.Method, MAR: marStatus(e, mg), PR: prStatus(e), Certificate: e.Certificate}
	return a, mg, nil
}

type uaiKey struct {
	id     int32
	method string
}

// varMarginals collects the variable marginals of every (model, method).
func varMarginals(models []Model, marg []formats.MarginalRow) (map[uaiKey][][]float64, error) {
	byID := make(map[int32]*Model, len(models))
	for i := range models {
		byID[models[i].ID] = &models[i]
	}
	vars := map[uaiKey][][]float64{}
	for _, r := range marg {
		m := byID[r.ModelID]
		if r.Kind != "var" || m == nil {
			continue
		}
		k := uaiKey{r.ModelID, r.Method}
		if vars[k] == nil {
			vars[k] = make([][]float64, len(m.Model.Cards))
		}
		if int(r.Index) < 0 || int(r.Index) >= len(m.Model.Cards) {
			return nil, fmt.Errorf("UAI output: model %d %s: marginal of variable %d, the model has %d", m.ID, r.Method, r.Index, len(m.Model.Cards))
		}
		vars[k][r.Index] = r.Probs
	}
	return vars, nil
}

// answerOutputs writes one answer's pair of files, each headed by its status
// and this run.
func (u UAIOut) answerOutputs(t uaiTarget, a UAIAnswer, mg [][]float64, log10Z float64) ([]Output, error) {
	run, err := u.runLine(t.method)
	if err != nil {
		return nil, err
	}
	dir := u.dir(t.method)
	mar, pr := []string{a.MAR.comment(), run}, []string{a.PR.comment(), run}
	if a.Certificate != "" {
		// What backs the answer (auto's), after the status and the run.
		cert := "renn certificate: " + a.Certificate
		mar, pr = append(mar, cert), append(pr, cert)
	}
	outs := []Output{{Dir: dir, Name: t.name + ".uai." + formats.UAIResultMAR, Write: func(p string) error { return formats.WriteMARFile(p, mg, mar...) }}}
	prName := t.name + ".uai." + formats.UAIResultPR
	if a.PR.State == UAINoEstimate {
		// No PR file, and none of an earlier run beside this MAR file
		// (Claim has refused one of another run without Overwrite).
		return append(outs, Output{Dir: dir, Name: prName, Remove: true}), nil
	}
	return append(outs, Output{Dir: dir, Name: prName, Write: func(p string) error { return formats.WritePRFile(p, log10Z, pr...) }}), nil
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
