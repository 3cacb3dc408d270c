// Package samplemodel is the sample-model stage: it generates seeded Ising
// models, imports UAI models with evidence, and draws exact data sets from
// models.
package samplemodel

import (
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"time"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// IsingParams are the parameters of an Ising model collection.
type IsingParams struct {
	Graph string  `json:"graph"` // grid, torus or complete
	Size  int     `json:"size"`  // grid side L, or number of nodes n of a complete graph
	Gamma float64 `json:"gamma"` // standard deviation of the fields
	Count int     `json:"count"`
	Seed  int64   `json:"seed"`
}

// Ising writes Count models drawn as the paper's section 5.1 describes:
// J_ij ~ N(0,1), h_i ~ N(0, Gamma²); model k uses seed mrf.DeriveSeed(Seed, k).
func Ising(p IsingParams, out string) error {
	var n int
	var edges []mrf.Edge
	switch p.Graph {
	case "grid", "torus":
		es, err := mrf.GridEdges(p.Size, p.Graph == "torus")
		if err != nil {
			return err
		}
		n, edges = p.Size*p.Size, es
	case "complete":
		if p.Size < 1 {
			return fmt.Errorf("complete graph needs --size >= 1, got %d", p.Size)
		}
		n, edges = p.Size, mrf.CompleteEdges(p.Size)
	default:
		return fmt.Errorf("unknown graph %q (want grid, torus or complete)", p.Graph)
	}
	if p.Count < 1 {
		return fmt.Errorf("--count must be >= 1, got %d", p.Count)
	}
	if p.Gamma < 0 || math.IsNaN(p.Gamma) || math.IsInf(p.Gamma, 0) {
		return fmt.Errorf("--gamma must be a finite number >= 0, got %v", p.Gamma)
	}
	models := make([]stageio.Model, p.Count)
	for k := range models {
		seed := mrf.DeriveSeed(p.Seed, k)
		models[k] = stageio.Model{
			ID:    int32(k),
			Model: mrf.RandomIsing(n, edges, p.Gamma, seed),
			Info: mrf.Info{Name: fmt.Sprintf("%s%d-gamma%g-%d", p.Graph, p.Size, p.Gamma, k), Graph: p.Graph,
				Gamma: p.Gamma, Seed: seed, Source: "sample-model ising"},
		}
	}
	return writeModels(out, "sample-model ising", p, p.Seed, nil, models)
}

// UAIParams name a UAI model file and optional evidence.
type UAIParams struct {
	In   string `json:"in"`
	Evid string `json:"evid,omitempty"`
	Case int    `json:"case"` // which evidence case to apply (files in the old form may hold several)
}

// UAI imports one UAI model; evidence becomes extra unary factors with 0/-Inf.
func UAI(p UAIParams, out string) error {
	m, kind, err := formats.ReadUAIFile(p.In)
	if err != nil {
		return err
	}
	inputs := []string{p.In}
	if p.Evid != "" {
		cases, err := formats.ReadEvidenceFile(p.Evid, m.Cards)
		if err != nil {
			return err
		}
		if p.Case < 0 || p.Case >= len(cases) {
			return fmt.Errorf("%s: evidence case %d requested, file has %d", p.Evid, p.Case, len(cases))
		}
		for _, o := range cases[p.Case] {
			if err := m.Observe(o.Var, o.State); err != nil {
				return fmt.Errorf("%s: %w", p.Evid, err)
			}
		}
		inputs = append(inputs, p.Evid)
	}
	name := filepath.Base(p.In)
	models := []stageio.Model{{ID: 0, Model: m, Info: mrf.Info{Name: name, Graph: "uai", Source: kind + " " + p.In}}}
	return writeModels(out, "sample-model uai", p, 0, inputs, models)
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

// Data draws Train+Test exact samples from every model of Models (model k from
// seed mrf.DeriveSeed(Seed, k)); the first Train are the "train" split.
func Data(p DataParams, out string) error {
	if p.Train < 0 || p.Test < 0 || p.Train+p.Test == 0 {
		return fmt.Errorf("--train and --test must be >= 0 and not both 0 (got %d, %d)", p.Train, p.Test)
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	var rows []formats.SampleRow
	for _, e := range models {
		start := time.Now()
		rng := mrf.NewRand(mrf.DeriveSeed(p.Seed, int(e.ID)))
		xs, logp, err := exact.Sample(e.Model, p.Train+p.Test, rng, p.exactOptions())
		if err != nil {
			return fmt.Errorf("model %d (%s): %w", e.ID, e.Info.Name, err)
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

// exactOptions are exact sampling's options: its defaults with the table
// bound and seed of p.
func (p DataParams) exactOptions() exact.Options {
	o := exact.DefaultOptions()
	o.MaxTable, o.Seed = p.MaxTable, p.Seed
	return o
}
