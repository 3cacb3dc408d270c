// Package samplemodel is the sample-model stage: it generates seeded Ising
// models, imports UAI models with evidence, and draws exact data sets from
// models.
package samplemodel

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// IsingParams are the parameters of an Ising model collection. The fields
// after Seed are left out of the provenance when empty, so the paper's
// collections (grid, torus or complete with Gamma) keep the parameters, the
// files and the model names they always had.
type IsingParams struct {
	Graph string  `json:"graph"` // grid, torus, complete, bipartite or regular
	Size  int     `json:"size"`  // grid side L, or number of nodes n of a complete or regular graph; 0 for bipartite
	Gamma float64 `json:"gamma"` // fields h_i ~ N(0, Gamma²) when Fields is empty; must be 0 when Fields is set
	Count int     `json:"count"`
	Seed  int64   `json:"seed"`

	Left      int    `json:"left,omitempty"`      // bipartite: left nodes 0..Left-1
	Right     int    `json:"right,omitempty"`     // bipartite: right nodes Left..Left+Right-1
	Degree    int    `json:"degree,omitempty"`    // regular: the degree d
	Couplings string `json:"couplings,omitempty"` // J_ij's distribution, "normal:SIGMA" or "uniform:F"; empty means normal:1
	Fields    string `json:"fields,omitempty"`    // h_i's distribution; empty means normal:Gamma
	Hide      string `json:"hide,omitempty"`      // hidden variables: a pattern or a list (hiddenVars)
}

// isingPlan is a checked IsingParams: the canonical parameters (what the
// provenance records), the distributions and the graph.
type isingPlan struct {
	p                 IsingParams
	fields, couplings mrf.Dist
	graph             mrf.Graph
	paper             bool // the paper's family: old names and source
	hidden            []int
}

// Check reports whether p can be generated; its errors name the flags of
// 'sample-model ising'.
func (p IsingParams) Check() error {
	_, err := p.plan()
	return err
}

// plan checks p and puts it in canonical form: couplings normal:1 are the
// default (Couplings ""), and normal fields are Gamma (Fields ""), so a
// collection has one set of parameters however it was asked for.
func (p IsingParams) plan() (isingPlan, error) {
	pl := isingPlan{couplings: mrf.Normal(1)}
	if p.Couplings != "" {
		c, err := mrf.ParseDist(p.Couplings)
		if err != nil {
			return pl, fmt.Errorf("--couplings: %w", err)
		}
		pl.couplings = c
		p.Couplings = c.String()
		if c == mrf.Normal(1) {
			p.Couplings = ""
		}
	}
	if p.Fields != "" {
		if p.Gamma != 0 {
			return pl, fmt.Errorf("--fields %s and --gamma %v both given: --gamma G is the same as --fields normal:G; give one", p.Fields, p.Gamma)
		}
		f, err := mrf.ParseDist(p.Fields)
		if err != nil {
			return pl, fmt.Errorf("--fields: %w", err)
		}
		pl.fields = f
		p.Fields = f.String()
		if f.Kind == mrf.DistNormal {
			p.Gamma, p.Fields = f.Scale, ""
		}
	} else {
		if p.Gamma < 0 || math.IsNaN(p.Gamma) || math.IsInf(p.Gamma, 0) {
			return pl, fmt.Errorf("--gamma must be a finite number >= 0, got %v", p.Gamma)
		}
		pl.fields = mrf.Normal(p.Gamma)
	}
	switch {
	case p.Graph == mrf.GraphBipartite && p.Size != 0:
		return pl, fmt.Errorf("--size is not used with --graph bipartite (give --left and --right), got --size %d", p.Size)
	case p.Graph != mrf.GraphBipartite && (p.Left != 0 || p.Right != 0):
		return pl, fmt.Errorf("--left and --right are only for --graph bipartite, got --graph %s", p.Graph)
	case p.Graph != mrf.GraphRegular && p.Degree != 0:
		return pl, fmt.Errorf("--degree is only for --graph regular, got --graph %s", p.Graph)
	}
	pl.graph = mrf.Graph{Family: p.Graph, Size: p.Size, Left: p.Left, Right: p.Right, Degree: p.Degree}
	vars, edges, err := pl.graph.Counts()
	if err != nil {
		return pl, fmt.Errorf("--graph %s: %w", p.Graph, err)
	}
	if p.Count < 1 {
		return pl, fmt.Errorf("--count must be >= 1, got %d", p.Count)
	}
	// The whole collection is held in memory before it is written.
	if int64(p.Count) > mrf.MaxIsingVars || int64(p.Count)*int64(vars) > mrf.MaxIsingVars || int64(p.Count)*int64(edges) > mrf.MaxIsingEdges {
		return pl, fmt.Errorf("--count %d models of %d variables and %d edges is too large (limits %d variables, %d edges in all)",
			p.Count, vars, edges, mrf.MaxIsingVars, mrf.MaxIsingEdges)
	}
	if pl.hidden, err = hiddenVars(p.Hide, &pl.graph, int(vars)); err != nil {
		return pl, err
	}
	pl.p = p
	pl.paper = p.Couplings == "" && p.Fields == "" &&
		(p.Graph == mrf.GraphGrid || p.Graph == mrf.GraphTorus || p.Graph == mrf.GraphComplete)
	return pl, nil
}

// info describes model k with seed seed. The paper's family keeps its old
// names ("grid10-gamma1-3") and source ("sample-model ising"); every other
// family is named graph-J<couplings>-h<fields>-k ("grid10-Ju10-hu1-3",
// "bipartite20x20-Jn1-hn1-0", "regular50d3-Jn1-hn1-0"; n = normal with σ,
// u = uniform with F) and its source names both distributions
// ("sample-model ising couplings=uniform:10 fields=uniform:1"). Gamma is the
// σ of normal fields, 0 for uniform ones.
func (pl isingPlan) info(k int, seed int64) mrf.Info {
	p := pl.p
	in := pl.baseInfo(k, seed)
	in.Source += hideSource(p.Hide)
	in.Hidden = pl.hidden
	return in
}

// baseInfo is info without the hidden variables.
func (pl isingPlan) baseInfo(k int, seed int64) mrf.Info {
	p := pl.p
	in := mrf.Info{Graph: p.Graph, Seed: seed, Source: "sample-model ising"}
	if pl.fields.Kind == mrf.DistNormal {
		in.Gamma = pl.fields.Scale
	}
	if pl.paper {
		in.Name = fmt.Sprintf("%s%d-gamma%g-%d", p.Graph, p.Size, p.Gamma, k)
		return in
	}
	graph := fmt.Sprintf("%s%d", p.Graph, p.Size)
	switch p.Graph {
	case mrf.GraphBipartite:
		graph = fmt.Sprintf("bipartite%dx%d", p.Left, p.Right)
	case mrf.GraphRegular:
		graph = fmt.Sprintf("regular%dd%d", p.Size, p.Degree)
	}
	in.Name = fmt.Sprintf("%s-J%s-h%s-%d", graph, pl.couplings.Short(), pl.fields.Short(), k)
	in.Source = fmt.Sprintf("sample-model ising couplings=%s fields=%s", pl.couplings, pl.fields)
	return in
}

// Ising writes Count models. Model k has seed s_k = mrf.DeriveSeed(Seed, k)
// and draws, from mrf.NewRand(s_k), h_i from the field distribution for every
// node in node order, then J_ij from the coupling distribution for every edge
// in edge order (lexicographic). The paper's section 5.1 is the default:
// J_ij ~ N(0,1), h_i ~ N(0, Gamma²). A regular graph is random too: model k's
// graph is drawn first, from its own stream mrf.NewRand(mrf.DeriveSeed(s_k, 0))
// (mrf.RegularEdges), so every model has its own graph and the fields and
// couplings use the stream as for the other graphs.
func Ising(p IsingParams, out string) error {
	pl, err := p.plan()
	if err != nil {
		return err
	}
	var n int
	var edges []mrf.Edge
	if pl.graph.Family != mrf.GraphRegular {
		if n, edges, err = pl.graph.Edges(nil); err != nil {
			return err
		}
	}
	models := make([]stageio.Model, pl.p.Count)
	for k := range models {
		seed := mrf.DeriveSeed(pl.p.Seed, k)
		if pl.graph.Family == mrf.GraphRegular {
			if n, edges, err = pl.graph.Edges(mrf.NewRand(mrf.DeriveSeed(seed, 0))); err != nil {
				return fmt.Errorf("model %d: %w", k, err)
			}
		}
		models[k] = stageio.Model{
			ID:    int32(k),
			Model: mrf.RandomIsingWith(n, edges, pl.fields, pl.couplings, seed),
			Info:  pl.info(k, seed),
		}
	}
	return writeModels(out, "sample-model ising", pl.p, pl.p.Seed, nil, models)
}

// UAIParams name a UAI model file and optional evidence, or a directory of
// UAI files.
type UAIParams struct {
	In   string `json:"in"`
	Evid string `json:"evid,omitempty"`
	Case int    `json:"case"`           // which evidence case to apply (files in the old form may hold several)
	Hide string `json:"hide,omitempty"` // hidden variables: a list of indices (hiddenVars)
}

// Check rejects a negative case, and a case other than 0 for a single file
// without evidence (it would be silently ignored).
func (p UAIParams) Check() error {
	if p.Case < 0 {
		return fmt.Errorf("--case %d, want >= 0", p.Case)
	}
	if p.Case != 0 && p.Evid == "" {
		if st, err := os.Stat(p.In); err != nil || !st.IsDir() {
			return fmt.Errorf("--case %d without --evid: the case of which evidence file? (a single --in file takes its evidence from --evid)", p.Case)
		}
	}
	return nil
}

// UAI imports one UAI model; evidence becomes extra unary factors with 0/-Inf.
// The model is named after the file (its base name) and its source records
// the file, and the evidence file and case when given. When p.In is a
// directory it imports every model in it (uaiDir).
func UAI(p UAIParams, out string) error {
	if err := p.Check(); err != nil {
		return err
	}
	if st, err := os.Stat(p.In); err == nil && st.IsDir() {
		return uaiDir(p, out)
	}
	m, kind, inputs, err := readUAIModel(p.In, p.Evid, p.Case)
	if err != nil {
		return err
	}
	name := filepath.Base(p.In)
	hidden, err := hiddenVars(p.Hide, nil, len(m.Cards))
	if err != nil {
		return fmt.Errorf("%s: %w", p.In, err)
	}
	models := []stageio.Model{{ID: 0, Model: m, Info: mrf.Info{Name: name, Graph: "uai", Source: p.source(kind), Hidden: hidden}}}
	return writeModels(out, "sample-model uai", p, 0, inputs, models)
}

// source is model_info's source of an imported model: the preamble and the
// file, then the evidence file and the case applied when there is one, as
// "BAYES net.uai evid=net.uai.evid case=0".
func (p UAIParams) source(kind string) string {
	s := kind + " " + p.In
	if p.Evid != "" {
		s += fmt.Sprintf(" evid=%s case=%d", p.Evid, p.Case)
	}
	return s + hideSource(p.Hide)
}

// readUAIModel reads the UAI model in, with case evCase of the evidence file
// evid applied when evid is not empty, and returns it with its kind (MARKOV
// or BAYES) and the files read.
func readUAIModel(in, evid string, evCase int) (*mrf.Model, string, []string, error) {
	m, kind, err := formats.ReadUAIFile(in)
	if err != nil {
		return nil, "", nil, err
	}
	inputs := []string{in}
	if evid != "" {
		cases, err := formats.ReadEvidenceFile(evid, m.Cards)
		if err != nil {
			return nil, "", nil, err
		}
		if evCase < 0 || evCase >= len(cases) {
			return nil, "", nil, fmt.Errorf("%s: evidence case %d requested, file has %d", evid, evCase, len(cases))
		}
		if len(cases) > 1 {
			slog.Warn(fmt.Sprintf("%s holds %d evidence cases: case %d applied, the other %d ignored (--case selects one)", evid, len(cases), evCase, len(cases)-1))
		}
		for _, o := range cases[evCase] {
			if err := m.Observe(o.Var, o.State); err != nil {
				return nil, "", nil, fmt.Errorf("%s: %w", evid, err)
			}
		}
		inputs = append(inputs, evid)
	}
	return m, kind, inputs, nil
}

func writeModels(out, stage string, params any, seed int64, inputs []string, models []stageio.Model) error {
	prov, err := stageio.Provenance(stage, params, seed, inputs)
	if err != nil {
		return err
	}
	infos, rows := stageio.Rows(models)
	return stageio.Commit(out,
		stageio.Output{Name: formats.ModelsFile, Write: func(p string) error { return formats.WriteModels(p, rows, prov) }},
		stageio.Output{Name: formats.ModelInfoFile, Write: func(p string) error { return formats.WriteModelInfo(p, infos, prov) }},
	)
}

// DataParams describe a data set drawn by exact sampling.
type DataParams struct {
	Models   string `json:"models"`
	Train    int    `json:"train"`
	Test     int    `json:"test"`
	Seed     int64  `json:"seed"`
	MaxTable int64  `json:"max_table"`
}

// MaxSampleValues bounds the variable values Data draws in all, samples
// times variables summed over the models (about 2 GiB in memory and more on
// disk); it is checked before sampling.
const MaxSampleValues = 1 << 28

// Check validates p's counts and table bound before any file is read:
// --train and --test non-negative, not both zero, and together at most
// MaxSampleValues (each model has a variable); --max-table at least 1.
func (p DataParams) Check() error {
	if p.Train < 0 || p.Test < 0 || p.Train+p.Test == 0 {
		return fmt.Errorf("--train and --test must be >= 0 and not both 0 (got %d, %d)", p.Train, p.Test)
	}
	if p.Train > MaxSampleValues || p.Test > MaxSampleValues-p.Train {
		return fmt.Errorf("--train %d and --test %d: %d samples per model, above the bound of %d sample values in all",
			p.Train, p.Test, int64(p.Train)+int64(p.Test), MaxSampleValues)
	}
	if p.MaxTable < 1 {
		return fmt.Errorf("--max-table %d, want >= 1", p.MaxTable)
	}
	return nil
}

// Data draws Train+Test exact samples from every model of Models (model k from
// seed mrf.DeriveSeed(Seed, k)); the first Train are the "train" split. Of a
// model with hidden variables (model_info's hidden column) it writes the
// visible values only, in increasing variable order, and their exact
// marginal log-probability ln p(x_v) = ln Z(x_v) - ln Z as log_p.
func Data(p DataParams, out string) error {
	if err := p.Check(); err != nil {
		return err
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	var values int64
	for _, e := range models {
		values += int64(p.Train+p.Test) * int64(len(e.Model.Cards))
	}
	if values > MaxSampleValues {
		return fmt.Errorf("--train %d and --test %d samples of the %d models of %s are %d variable values, above the bound %d",
			p.Train, p.Test, len(models), p.Models, values, MaxSampleValues)
	}
	var rows []formats.SampleRow
	for _, e := range models {
		start := time.Now()
		rng := mrf.NewRand(mrf.DeriveSeed(p.Seed, int(e.ID)))
		xs, logp, err := exact.Sample(e.Model, p.Train+p.Test, rng, p.exactOptions())
		if err != nil {
			return fmt.Errorf("model %d (%s): %w", e.ID, e.Info.Name, err)
		}
		if len(e.Info.Hidden) > 0 {
			if xs, logp, err = visiblePart(e, xs, p.exactOptions()); err != nil {
				return fmt.Errorf("model %d (%s): %w", e.ID, e.Info.Name, err)
			}
		}
		for i, x := range xs {
			split := "train"
			if i >= p.Train {
				split = "test"
			}
			x32 := make([]int32, len(x))
			for j, s := range x {
				x32[j] = int32(s)
			}
			rows = append(rows, formats.SampleRow{ModelID: e.ID, Split: split, X: x32, LogP: logp[i]})
		}
		slog.Info("sampled", "model", e.ID, "name", e.Info.Name, "samples", len(xs), "seconds", time.Since(start).Seconds())
	}
	prov, err := stageio.Provenance("sample-model data", p, p.Seed, inputs)
	if err != nil {
		return err
	}
	return stageio.Commit(out, stageio.Output{Name: formats.SamplesFile, Write: func(path string) error { return formats.WriteSamples(path, rows, prov) }})
}

// visiblePart keeps the visible values of the full samples xs of a model
// with hidden variables and returns them with their exact marginal
// log-probabilities ln p(x_v) (exact.LogMarginals).
func visiblePart(e stageio.Model, xs [][]int, opt exact.Options) ([][]int, []float64, error) {
	vis := mrf.Visible(e.Info.Hidden, len(e.Model.Cards))
	out := make([][]int, len(xs))
	for s, x := range xs {
		v := make([]int, len(vis))
		for k, i := range vis {
			v[k] = x[i]
		}
		out[s] = v
	}
	logp, _, err := exact.LogMarginals(e.Model, vis, out, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("marginal log-probability of the visible values: %w", err)
	}
	return out, logp, nil
}

// exactOptions are exact sampling's options: its defaults with the table
// bound and seed of p.
func (p DataParams) exactOptions() exact.Options {
	o := exact.DefaultOptions()
	o.MaxTable, o.Seed = p.MaxTable, p.Seed
	return o
}
