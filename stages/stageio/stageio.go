// Package stageio holds what every stage does the same way: loading the models
// of a directory, recording provenance, and committing a stage's output files
// all together or not at all.
package stageio

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"sort"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
)

// Version returns the program version recorded in every output file: the
// main module's version from the build information, or 0.1.0 in a
// development build.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0"
}

// Model is one model of a models directory with its description.
type Model struct {
	ID    int32
	Info  mrf.Info
	Model *mrf.Model
}

// LoadModels reads models.parquet and model_info.parquet from dir and checks
// that they describe the same, well-formed models. It returns the models in
// model_id order and the paths it read (for provenance).
func LoadModels(dir string) ([]Model, []string, error) {
	mpath := filepath.Join(dir, formats.ModelsFile)
	ipath := filepath.Join(dir, formats.ModelInfoFile)
	infos, _, err := formats.ReadModelInfo(ipath)
	if err != nil {
		return nil, nil, err
	}
	for _, in := range infos {
		if err := checkHidden(in); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", ipath, err)
		}
	}
	rows, _, err := formats.ReadModels(mpath)
	if err != nil {
		return nil, nil, err
	}
	models, err := FromRows(infos, rows)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", mpath, err)
	}
	return models, []string{mpath, ipath}, nil
}

// FromRows assembles models from model_info rows and factor rows, checking ids,
// scopes against cardinalities, and table lengths.
func FromRows(infos []formats.ModelInfoRow, rows []formats.FactorRow) ([]Model, error) {
	byID := make(map[int32]int, len(infos))
	out := make([]Model, len(infos))
	for k, in := range infos {
		if _, dup := byID[in.ModelID]; dup {
			return nil, fmt.Errorf("model_id %d appears twice in model_info", in.ModelID)
		}
		byID[in.ModelID] = k
		cards := make([]int, len(in.Cards))
		for i, c := range in.Cards {
			cards[i] = int(c)
		}
		if err := checkHidden(in); err != nil {
			return nil, err
		}
		var hidden []int
		for _, v := range in.Hidden {
			hidden = append(hidden, int(v))
		}
		out[k] = Model{ID: in.ModelID, Info: mrf.Info{Name: in.Name, Graph: in.Graph, Gamma: in.Gamma, Seed: in.Seed, Source: in.Source, Hidden: hidden},
			Model: &mrf.Model{Cards: cards}}
	}
	next := make(map[int32]int32)
	for r, row := range rows {
		k, ok := byID[row.ModelID]
		if !ok {
			return nil, fmt.Errorf("row %d: model_id %d has no entry in model_info", r, row.ModelID)
		}
		if row.FactorID != next[row.ModelID] {
			return nil, fmt.Errorf("row %d: model %d factor_id %d, want %d (factors must be numbered 0,1,... in order)", r, row.ModelID, row.FactorID, next[row.ModelID])
		}
		next[row.ModelID]++
		vars := make([]int, len(row.Vars))
		for i, v := range row.Vars {
			vars[i] = int(v)
		}
		m := out[k].Model
		m.Factors = append(m.Factors, mrf.Factor{Vars: vars, LogTable: row.LogTable})
	}
	for _, e := range out {
		if err := e.Model.Validate(); err != nil {
			return nil, fmt.Errorf("model %d: %w", e.ID, err)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out, nil
}

// checkHidden checks a model_info row's hidden variables against its
// variables (mrf.CheckHidden).
func checkHidden(in formats.ModelInfoRow) error {
	if len(in.Hidden) == 0 {
		return nil
	}
	hidden := make([]int, len(in.Hidden))
	for k, v := range in.Hidden {
		hidden[k] = int(v)
	}
	if err := mrf.CheckHidden(hidden, len(in.Cards)); err != nil {
		return fmt.Errorf("model %d (%s): column hidden: %w", in.ModelID, in.Name, err)
	}
	return nil
}

// Rows turns models into model_info and factor rows.
func Rows(models []Model) ([]formats.ModelInfoRow, []formats.FactorRow) {
	var infos []formats.ModelInfoRow
	var rows []formats.FactorRow
	for _, e := range models {
		cards := make([]int32, len(e.Model.Cards))
		for i, c := range e.Model.Cards {
			cards[i] = int32(c)
		}
		var hidden []int32
		for _, v := range e.Info.Hidden {
			hidden = append(hidden, int32(v))
		}
		infos = append(infos, formats.ModelInfoRow{ModelID: e.ID, Name: e.Info.Name, Cards: cards, Graph: e.Info.Graph,
			Gamma: e.Info.Gamma, Seed: e.Info.Seed, Source: e.Info.Source, Hidden: hidden})
		for a, f := range e.Model.Factors {
			vars := make([]int32, len(f.Vars))
			for i, v := range f.Vars {
				vars[i] = int32(v)
			}
			rows = append(rows, formats.FactorRow{ModelID: e.ID, FactorID: int32(a), Vars: vars, LogTable: f.LogTable})
		}
	}
	return infos, rows
}

// Provenance builds the metadata of an output file: the stage, the version,
// the parameters as JSON, the seed and the sha256 of every input file.
func Provenance(stage string, params any, seed int64, inputs []string) (formats.Provenance, error) {
	p := formats.Provenance{Stage: stage, Version: Version(), Seed: seed, Inputs: map[string]string{}}
	js, err := json.Marshal(params)
	if err != nil {
		return p, fmt.Errorf("encode parameters: %w", err)
	}
	p.Params = string(js)
	for _, in := range inputs {
		sum, err := formats.FileSHA256(in)
		if err != nil {
			return p, err
		}
		p.Inputs[in] = sum
	}
	return p, nil
}

// Output is one file a stage writes: its name inside the output directory and
// the function that writes it to a path. Dir, when set, is the directory of
// this output instead of the stage's output directory (--uai-out); Name may
// hold subdirectories, which the writer creates. An output with Remove set
// (and no Write) removes the file Name instead: the commit does not carry it
// over (a result file of the stage's previous run that this run no longer
// writes).
type Output struct {
	Name   string
	Write  func(path string) error
	Dir    string
	Remove bool
}

// MarginalRows turns the marginals of model m (its exact ones or a method's
// estimates) into rows of marginals.parquet: one "var" row per variable, then
// one "factor" row per factor, each holding its table of probabilities.
func MarginalRows(id int32, method string, m *mrf.Model, mg mrf.Marginals) []formats.MarginalRow {
	rows := make([]formats.MarginalRow, 0, len(mg.Vars)+len(mg.Factors))
	for i, p := range mg.Vars {
		rows = append(rows, formats.MarginalRow{ModelID: id, Method: method, Kind: "var", Index: int32(i), Vars: []int32{int32(i)}, Probs: p})
	}
	for a, p := range mg.Factors {
		vs := make([]int32, len(m.Factors[a].Vars))
		for i, v := range m.Factors[a].Vars {
			vs[i] = int32(v)
		}
		rows = append(rows, formats.MarginalRow{ModelID: id, Method: method, Kind: "factor", Index: int32(a), Vars: vs, Probs: p})
	}
	return rows
}

// EstimateRow records one method's result on one model, its status
// (infer.Status) in the status column. Its params are the same JSON object
// for every method: {"method", "options", "regions" (the region graph's
// scheme, for region methods), "check" (the reason the answer failed the
// shared check, infer.Verify, status check_failed; absent when it passed),
// "diagnostics", "record" (the method's own account, infer.Result.Record,
// when it gives one)}. The certificate (infer.Result.Certificate) goes to
// its own column.
func EstimateRow(id int32, method string, res *infer.Result, secs float64, opts any, scheme string) formats.EstimateRow {
	type params struct {
		Method      string         `json:"method"`
		Options     any            `json:"options"`
		Regions     string         `json:"regions,omitempty"`
		Check       string         `json:"check,omitempty"`
		Diagnostics map[string]any `json:"diagnostics"`
		Record      any            `json:"record,omitempty"`
	}
	p := params{method, opts, scheme, res.Check, finite(res.Diagnostics), res.Record}
	js, err := json.Marshal(p)
	if err != nil && res.Record != nil {
		// A record JSON cannot hold (a NaN) must not lose the rest.
		p.Record = map[string]string{"error": err.Error()}
		js, _ = json.Marshal(p)
	}
	return formats.EstimateRow{ModelID: id, Method: method, LogZ: res.LogZ, FreeEnergy: res.FreeEnergy,
		Iterations: int32(res.Iterations), Converged: res.Converged(), Status: res.Status.String(), Seconds: secs, Params: string(js),
		Certificate: res.Certificate}
}

// CheckFailure returns the reason recorded under "check" in an estimate's
// params, or "" if there is none (the answer passed, or the params are not
// EstimateRow's JSON).
func CheckFailure(params string) string {
	var p struct {
		Check string `json:"check"`
	}
	if json.Unmarshal([]byte(params), &p) != nil {
		return ""
	}
	return p.Check
}

// finite drops values JSON cannot hold (NaN, ±Inf) and says so in their place.
func finite(d map[string]float64) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		if v != v || v > 1e308 || v < -1e308 {
			out[k] = fmt.Sprint(v)
		} else {
			out[k] = v
		}
	}
	return out
}
