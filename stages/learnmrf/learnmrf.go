// Package learnmrf is the learn-mrf stage: it learns the parameters of every
// model of a directory back from exact samples of it (paper, section 4),
// starting from a random model of the same structure, with a chosen
// inference method supplying ln Z and its gradient, and writes the learned
// models and their learning curves.
//
// A model with hidden variables (model_info's hidden column) is learned from
// samples of its visible variables (paper, appendix F): the method supplies
// the free phase on the model and, through learn.MethodClamped, the clamped
// phase on the model clamped to each distinct visible vector of a batch
// (exact: learn.ExactClamped, factorised where it can be; pcd:
// learn.PCDClamped, the same where it can be, else a persistent Gibbs
// chain per distinct visible vector). ClampedExact makes the clamped phase
// learn.ExactClamped for every method, which then supplies the free phase
// alone (outputs named with ClampedExactSuffix). With
// ClampedPerSample every distinct vector keeps its own instance of the
// method (for RENN, its own network); otherwise one instance serves every
// vector in turn, warm-started from the previous one's state.
package learnmrf

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/learn"
	"github.com/renn-go/renn/core/mcmc"
	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/core/renn"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
	"github.com/renn-go/renn/stages/trainrenn"
)

// Params are the learn-mrf parameters.
type Params struct {
	Samples string  `json:"samples"`
	Models  string  `json:"models"`
	IDs     []int32 `json:"ids,omitempty"` // models to learn; all when empty
	Method  string  `json:"method"`
	Param   string  `json:"param"` // ising, table or auto

	Epochs    int     `json:"epochs"`
	Batch     int     `json:"batch"`
	LR        float64 `json:"lr"`
	Optimizer string  `json:"optimizer"`
	Decay     float64 `json:"decay"`
	Tol       float64 `json:"tol"` // plateau rule; negative: no early stopping
	Patience  int     `json:"patience"`
	Guard     float64 `json:"guard"` // tangent check slack; negative: off
	Seed      int64   `json:"seed"`

	// Starting point: fields ~ N(0, FieldStd²) (0: the model's gamma when
	// it has one, else 1), couplings ~ N(0, CouplingStd²).
	FieldStd    float64 `json:"field_std"`
	CouplingStd float64 `json:"coupling_std"`

	MaxTable int64 `json:"max_table"` // exact inference of the test NLL

	// Region graph of region methods (gbp, renn): "auto" is faces on grids,
	// star on complete graphs, cycles otherwise; infnet always uses bethe.
	Scheme string `json:"scheme"`

	// Set holds the method's options as NAME=VALUE, over its learning
	// defaults (see methods.Resolve).
	Set []string `json:"set,omitempty"`

	// ClampedPerSample gives every distinct visible vector of a model with
	// hidden variables its own instance of the method for the clamped
	// phase, warm-started from its state of the previous epoch; false: one
	// instance for all vectors, warm-started from the previous vector.
	ClampedPerSample bool `json:"clamped_per_sample,omitempty"`

	// ClampedExact computes the clamped phase of a model with hidden
	// variables exactly (learn.ExactClamped: factorised where no factor
	// holds two hidden variables, as in an RBM, else the junction tree per
	// distinct visible vector) instead of with the learning method; the
	// method then supplies the free phase alone.
	ClampedExact bool `json:"clamped_exact,omitempty"`

	// Weights, when set, is a trained family network (train-renn
	// --amortize): the RENN method (its net must be message) starts every
	// inference call from the network's answer instead of afresh.
	Weights string `json:"weights,omitempty"`

	// FamilyRead, with Weights, says when RENN reads the model through the
	// family network: renn.FamilyReadStart ("start"; also when empty) only
	// when its net starts afresh, renn.FamilyReadEvery ("every") at every
	// parameter update (see renn.SetFamilyRead).
	FamilyRead string `json:"family_read,omitempty"`

	weights *trainrenn.Weights // loaded by Run
}

// DefaultParams returns learn-mrf's defaults (the command line starts from
// them): method exact, learn.DefaultOptions, a unit coupling spread, the
// field spread of the true model's gamma, the default table bound of exact
// inference and the auto region scheme.
func DefaultParams() Params {
	l := learn.DefaultOptions()
	return Params{Method: "exact", Param: "auto", Epochs: l.Epochs, Batch: l.Batch, LR: l.LR, Optimizer: l.Optimizer,
		Decay: l.Decay, Tol: l.Tol, Patience: l.Patience, Guard: l.Guard, Seed: 1, CouplingStd: 1,
		MaxTable: exact.DefaultMaxTable, Scheme: region.Auto}
}

// MethodOptions resolves the method's options: its learning defaults with
// p.Set applied, checked.
func (p Params) MethodOptions() (*methods.Options, error) {
	opts, err := methods.Resolve([]string{p.Method}, p.Set, true)
	if err != nil {
		return nil, err
	}
	return opts[p.Method], nil
}

// FamilyLabel is the method name of learning with a family network
// (--weights) in curves.parquet and the learned models' names: the report
// lists it beside renn-mp, which learns without one.
const FamilyLabel = "renn-family"

// ClampedExactSuffix ends the method name of learning with ClampedExact
// (but for method exact, whose clamped phase is exact anyway), so that the
// report tells it from the same method computing the clamped phase itself.
const ClampedExactSuffix = "-exact-clamped"

// Label returns the method name the outputs carry: p.Method, or FamilyLabel
// with --weights, followed by ClampedExactSuffix with ClampedExact.
func (p Params) Label() string {
	label := p.Method
	if p.Weights != "" {
		label = FamilyLabel
	}
	if p.ClampedExact && p.Method != "exact" {
		label += ClampedExactSuffix
	}
	return label
}

// LearnOptions returns the learning options of p for a model's seed.
func (p Params) LearnOptions(seed int64) learn.Options {
	ex := exact.DefaultOptions()
	ex.MaxTable, ex.Seed = p.MaxTable, p.Seed
	return learn.Options{Epochs: p.Epochs, Batch: p.Batch, LR: p.LR, Optimizer: p.Optimizer, Decay: p.Decay,
		Seed: seed, Tol: p.Tol, Patience: p.Patience, Guard: p.Guard, Exact: ex}
}

// Check validates p's options before any file is read.
func (p Params) Check() error {
	if _, err := p.MethodOptions(); err != nil {
		return err
	}
	if p.Param != "auto" && p.Param != "ising" && p.Param != "table" {
		return fmt.Errorf("param: unknown parameterisation %q (want auto, ising or table)", p.Param)
	}
	if !(p.CouplingStd > 0) || !(p.FieldStd >= 0) {
		return fmt.Errorf("coupling-std %v must be > 0 and field-std %v >= 0", p.CouplingStd, p.FieldStd)
	}
	if p.Weights != "" {
		mopts, _ := p.MethodOptions()
		if o, ok := mopts.Value().(renn.Options); !ok || o.Net != "message" {
			return fmt.Errorf("--weights starts RENN from a family network and needs the message net: --method renn-mp, or --method renn --set net=message (got --method %s)", p.Method)
		}
	}
	if p.ClampedExact && p.ClampedPerSample {
		return fmt.Errorf("clamped-exact and clamped-per-sample exclude each other: the exact clamped phase keeps no per-vector state")
	}
	switch {
	case p.FamilyRead != "" && p.Weights == "":
		return fmt.Errorf("family-read %q: only with --weights (it says when RENN reads the model through the family network)", p.FamilyRead)
	case p.FamilyRead != "" && p.FamilyRead != renn.FamilyReadStart && p.FamilyRead != renn.FamilyReadEvery:
		return fmt.Errorf("family-read: %q, want %s or %s", p.FamilyRead, renn.FamilyReadStart, renn.FamilyReadEvery)
	}
	return p.LearnOptions(0).Check()
}

// Run learns every selected model, writes models.parquet, model_info.parquet
// and curves.parquet into out, and prints one line per epoch to w.
func Run(ctx context.Context, p Params, out string, w io.Writer) error {
	mopts, err := p.MethodOptions()
	if err != nil {
		return err
	}
	if err := p.Check(); err != nil {
		return err
	}
	if p.Weights != "" {
		if p.weights, err = trainrenn.LoadWeights(p.Weights); err != nil {
			return err
		}
		if p.FamilyRead == "" {
			p.FamilyRead = renn.FamilyReadStart // recorded as run
		}
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	if p.weights != nil {
		inputs = append(inputs, p.weights.Path)
	}
	spath := filepath.Join(p.Samples, formats.SamplesFile)
	sets, err := loadSamples(spath, inputs[0], models)
	if err != nil {
		return err
	}
	if models, err = stageio.SelectModels(models, p.IDs, p.Models); err != nil {
		return err
	}
	for _, e := range models {
		if len(sets[e.ID].train) == 0 {
			return fmt.Errorf("%s: no train samples for model %d (%s)", spath, e.ID, e.Info.Name)
		}
		// Without a test split there is no test NLL to report (it would
		// be NaN in every curve row and line).
		if len(sets[e.ID].test) == 0 {
			return fmt.Errorf("%s: no test samples for model %d (%s): the test NLL needs them (sample-model data --test N, N > 0)", spath, e.ID, e.Info.Name)
		}
	}
	inputs = append(inputs, spath)

	var learned []stageio.Model
	var curves []formats.CurveRow
	var resolved any
	chosen := map[int32]string{}
	for _, e := range models {
		m, rows, opts, param, err := learnOne(ctx, p, mopts, e, sets[e.ID], w)
		if err != nil {
			return fmt.Errorf("model %d (%s): %w", e.ID, e.Info.Name, infer.Named(p.Method, err))
		}
		learned = append(learned, m)
		curves = append(curves, rows...)
		resolved = opts
		chosen[e.ID] = param
	}
	// The parameters as given, the method's options with every default
	// filled in, so a file says what ran even after defaults change, and
	// the parameterisation of every model (what --param auto chose).
	record := struct {
		Params
		MethodOptions    any              `json:"method_options"`
		Parameterisation map[int32]string `json:"parameterisation"`
	}{p, resolved, chosen}
	prov, err := stageio.Provenance("learn-mrf", record, p.Seed, inputs)
	if err != nil {
		return err
	}
	infos, frows := stageio.Rows(learned)
	return stageio.Commit(out,
		stageio.Output{Name: formats.ModelsFile, Write: func(path string) error { return formats.WriteModels(path, frows, prov) }},
		stageio.Output{Name: formats.ModelInfoFile, Write: func(path string) error { return formats.WriteModelInfo(path, infos, prov) }},
		stageio.Output{Name: formats.CurvesFile, Write: func(path string) error { return formats.WriteCurves(path, curves, prov) }},
	)
}

// sampleSet holds one model's samples.
type sampleSet struct {
	train, test [][]int
	trueTest    float64 // mean -log_p of the test split under the true model
}

// loadSamples reads samples.parquet and checks it against the models (read
// from modelsPath): that its provenance records them as the models sampled,
// every sample's length and states, and no samples of unknown models.
func loadSamples(path, modelsPath string, models []stageio.Model) (map[int32]*sampleSet, error) {
	rows, prov, err := formats.ReadSamples(path)
	if err != nil {
		return nil, err
	}
	if err := sameModels(path, prov, modelsPath); err != nil {
		return nil, err
	}
	return sampleSets(path, rows, models)
}

// sampleSets checks the rows of samples.parquet (read from path) against the
// models and splits them by model: a model with hidden variables needs
// samples of its visible variables, any other full samples.
func sampleSets(path string, rows []formats.SampleRow, models []stageio.Model) (map[int32]*sampleSet, error) {
	byID := make(map[int32]*stageio.Model, len(models))
	for k := range models {
		byID[models[k].ID] = &models[k]
	}
	sets := make(map[int32]*sampleSet, len(models))
	vis := make(map[int32][]int, len(models)) // the variables a sample holds, in order
	for k := range models {
		sets[models[k].ID] = &sampleSet{}
		vis[models[k].ID] = mrf.Visible(models[k].Info.Hidden, len(models[k].Model.Cards))
	}
	var unknown []int32
	for r, row := range rows {
		e := byID[row.ModelID]
		if e == nil {
			if !slices.Contains(unknown, row.ModelID) {
				unknown = append(unknown, row.ModelID)
			}
			continue
		}
		n := len(e.Model.Cards)
		vars := vis[row.ModelID]
		switch {
		case len(e.Info.Hidden) > 0 && len(row.X) != len(vars):
			return nil, fmt.Errorf("%s: row %d: model %d has %d hidden variables, so its samples hold the %d visible values; this one has %d (full samples, drawn before the variables were hidden?)",
				path, r, row.ModelID, len(e.Info.Hidden), len(vars), len(row.X))
		case len(e.Info.Hidden) == 0 && len(row.X) != n:
			return nil, fmt.Errorf("%s: row %d: model %d sample has %d values, the model has %d variables, none hidden", path, r, row.ModelID, len(row.X), n)
		}
		x := make([]int, len(row.X))
		for k, v := range row.X {
			i := vars[k]
			if v < 0 || int(v) >= e.Model.Cards[i] {
				return nil, fmt.Errorf("%s: row %d: model %d variable %d has state %d, want 0..%d", path, r, row.ModelID, i, v, e.Model.Cards[i]-1)
			}
			x[k] = int(v)
		}
		s := sets[row.ModelID]
		switch row.Split {
		case "train":
			s.train = append(s.train, x)
		case "test":
			s.test = append(s.test, x)
			s.trueTest -= row.LogP
		default:
			return nil, fmt.Errorf("%s: row %d: split %q, want train or test", path, r, row.Split)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s: samples of model_id %v, which the models directory does not have (samples from other models?)", path, unknown)
	}
	for _, s := range sets {
		if len(s.test) > 0 {
			s.trueTest /= float64(len(s.test))
		} else {
			s.trueTest = math.NaN()
		}
	}
	return sets, nil
}

// sameModels checks that the samples at path were drawn from the models at
// modelsPath: model ids repeat across directories, so samples of other
// models would fit them and be learned from silently. sample-model data
// records the sha256 of the models.parquet it sampled among its inputs.
func sameModels(path string, prov formats.Provenance, modelsPath string) error {
	want, err := formats.FileSHA256(modelsPath)
	if err != nil {
		return err
	}
	var recorded []string
	for in, sha := range prov.Inputs {
		if filepath.Base(in) != formats.ModelsFile {
			continue
		}
		if sha == want {
			return nil
		}
		recorded = append(recorded, in)
	}
	if len(recorded) == 0 {
		return fmt.Errorf("%s: its provenance records no %s among its inputs, so the models it was drawn from are unknown (want samples of %s, from sample-model data)",
			path, formats.ModelsFile, modelsPath)
	}
	slices.Sort(recorded)
	return fmt.Errorf("%s: drawn from other models: %s, not %s (the --models directory; sha256 differs)", path, strings.Join(recorded, ", "), modelsPath)
}

// learnOne learns model e and returns the learned model, its curve rows, the
// method's resolved options and the name of the parameterisation used.
func learnOne(ctx context.Context, p Params, mopts *methods.Options, e stageio.Model, s *sampleSet, w io.Writer) (stageio.Model, []formats.CurveRow, any, string, error) {
	fail := func(err error) (stageio.Model, []formats.CurveRow, any, string, error) {
		return stageio.Model{}, nil, nil, "", err
	}
	param, err := learn.NewParam(p.Param, e.Model)
	if err != nil {
		return fail(err)
	}
	if _, err := fmt.Fprintf(w, "model %d %s parameterisation %s (--param %s)\n", e.ID, p.Method, param.Name(), p.Param); err != nil {
		return fail(err)
	}
	seed := mrf.DeriveSeed(p.Seed, int(e.ID))
	fieldStd, couplingStd := p.FieldStd, p.CouplingStd
	if fieldStd == 0 {
		fieldStd = 1
		if e.Info.Gamma > 0 {
			fieldStd = e.Info.Gamma
		}
	}
	theta := param.Random(mrf.NewRand(seed), fieldStd, couplingStd)
	start := param.Model(theta)
	newData := func(xs [][]int) (*learn.Data, error) {
		if len(e.Info.Hidden) > 0 {
			return learn.NewHiddenData(start, e.Info.Hidden, xs)
		}
		return learn.NewData(start, xs)
	}
	train, err := newData(s.train)
	if err != nil {
		return fail(fmt.Errorf("train split: %w", err))
	}
	var test *learn.Data
	if len(s.test) > 0 {
		if test, err = newData(s.test); err != nil {
			return fail(fmt.Errorf("test split: %w", err))
		}
	}
	method, resolved, err := newMethod(p, mopts, e.Info.Graph, start)
	if err != nil {
		return fail(err)
	}
	var l *learn.Learner
	if train.Hidden() {
		// The clamped phase: the same method and options on the model
		// clamped to each visible vector (its own region graph).
		var clamped learn.ClampedPhase = learn.NewMethodClamped(p.Method, func(cm *mrf.Model) (infer.Method, error) {
			m, _, err := newMethod(p, mopts, e.Info.Graph, cm)
			return m, err
		}, p.ClampedPerSample)
		if eo, ok := mopts.Value().(exact.Options); ok && p.Method == "exact" {
			clamped = learn.ExactClamped(eo) // factorised when it can be
		} else if p.ClampedExact {
			clamped = learn.ExactClamped(p.LearnOptions(0).Exact)
		}
		if po, ok := mopts.Value().(mcmc.PCDOptions); ok && p.Method == "pcd" && !p.ClampedExact {
			// Exact and factorised where the hidden variables are
			// independent given x (an RBM), else a persistent chain per
			// distinct visible vector.
			if clamped, err = learn.PCDClamped(po.Sweeps, mrf.DeriveSeed(po.Seed, -1)); err != nil {
				return fail(err)
			}
		}
		fmt.Fprintf(w, "model %d %s hidden variables %d of %d, %d distinct visible training vectors, clamped phase per sample %v, by %s\n",
			e.ID, p.Method, len(e.Info.Hidden), len(e.Model.Cards), train.Groups(), p.ClampedPerSample, clamped.Name())
		l, err = learn.NewHidden(method, clamped, param, theta, train, p.LearnOptions(mrf.DeriveSeed(seed, 1)))
	} else {
		l, err = learn.New(method, param, theta, train, p.LearnOptions(mrf.DeriveSeed(seed, 1)))
	}
	if err != nil {
		return fail(err)
	}
	var rows []formats.CurveRow
	total := 0.0
	rep, err := l.Fit(ctx, test, func(st learn.EpochStats) error {
		total += st.Seconds
		rows = append(rows, formats.CurveRow{ModelID: e.ID, Method: p.Label(), Iteration: int32(st.Epoch),
			TrainNLL: st.TrainNLL, TestNLL: st.TestNLL, Seconds: st.Seconds})
		clamped := ""
		if train.Hidden() {
			clamped = fmt.Sprintf(" clamped_calls %d clamped_iterations %d clamped_unconverged %d", st.ClampedCalls, st.ClampedIterations, st.ClampedUnconverged)
		}
		_, err := fmt.Fprintf(w, "model %d %s epoch %d train_nll %.4f test_nll %.4f true_test_nll %.4f seconds %.3f iterations %d unconverged %d resets %d below_bound %d%s\n",
			e.ID, p.Method, st.Epoch, st.TrainNLL, st.TestNLL, s.trueTest, st.Seconds, st.Iterations, st.Unconverged, st.Resets, st.BelowBound, clamped)
		return err
	})
	if err != nil {
		return fail(err)
	}
	last := rep.Epochs[len(rep.Epochs)-1]
	fmt.Fprintf(w, "model %d %s done: %d epochs (%s), test_nll %.4f, true_test_nll %.4f, %.3f s/epoch\n",
		e.ID, p.Method, len(rep.Epochs), rep.Stopped, last.TestNLL, s.trueTest, total/float64(len(rep.Epochs)))
	info := e.Info
	info.Name = fmt.Sprintf("%s-learned-%s", e.Info.Name, p.Label())
	info.Seed = seed
	info.Source = fmt.Sprintf("learn-mrf %s %s", p.Label(), param.Name())
	return stageio.Model{ID: e.ID, Info: info, Model: l.Model()}, rows, resolved, param.Name(), nil
}

// newMethod builds the inference method for models with start's structure
// and returns it with its options and region scheme, as recorded.
func newMethod(p Params, opts *methods.Options, graph string, start *mrf.Model) (infer.Method, any, error) {
	entry, err := methods.Lookup(p.Method)
	if err != nil {
		return nil, nil, err
	}
	var g *region.Graph
	switch entry.Regions {
	case methods.AnyRegions:
		g, err = buildRegions(start, graph, p.Scheme)
	case methods.BetheRegions:
		g, err = buildRegions(start, graph, region.Bethe)
	}
	if err != nil {
		return nil, nil, err
	}
	var m infer.Method
	if p.weights != nil {
		if err := p.weights.Fits(0, mrf.Info{Graph: graph}, start, g); err != nil {
			return nil, nil, err
		}
		r, err := renn.NewWithFamily(g, opts.Value().(renn.Options), p.weights.Family, false)
		if err != nil {
			return nil, nil, err
		}
		if p.FamilyRead != "" {
			if err := r.SetFamilyRead(p.FamilyRead); err != nil {
				return nil, nil, err
			}
		}
		m = methods.Verified(r)
	} else if m, err = entry.New(opts, g); err != nil {
		return nil, nil, err
	}
	if g == nil {
		return m, opts, nil
	}
	return m, map[string]any{"options": opts, "scheme": g.Scheme}, nil
}

func buildRegions(m *mrf.Model, graph, scheme string) (*region.Graph, error) {
	g, err := region.Build(m, graph, scheme)
	if err != nil {
		return nil, fmt.Errorf("region graph: %w", err)
	}
	return g, nil
}
