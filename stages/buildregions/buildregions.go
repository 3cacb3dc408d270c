// Package buildregions is the build-regions stage: a region graph for every
// model of a directory, with its counting numbers and validity check.
package buildregions

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// Params are the build-regions parameters.
type Params struct {
	Models string `json:"models"`
	Scheme string `json:"scheme"`
	// MaxRegionVars and MaxRegionStates bound the root regions (0: no
	// limit). Nil means the default: region.DefaultMaxVars and
	// region.DefaultMaxStates for cycles and auto, no limit for the explicit
	// schemes faces, faces+outer and star. Bethe is never refused.
	MaxRegionVars   *int   `json:"max_region_vars,omitempty"`
	MaxRegionStates *int64 `json:"max_region_states,omitempty"`
}

// Bounds returns the region bounds p stands for (see Params).
func (p Params) Bounds() region.Bounds {
	b := region.Unbounded()
	if p.Scheme == region.Auto || p.Scheme == region.Cycles {
		b = region.DefaultBounds()
	}
	if p.MaxRegionVars != nil {
		b.MaxVars = *p.MaxRegionVars
	}
	if p.MaxRegionStates != nil {
		b.MaxStates = *p.MaxRegionStates
	}
	return b
}

// provenance is what regions.parquet records: the parameters, the bounds
// applied and, per model id, what the scheme picked.
type provenance struct {
	Params
	Bounds region.Bounds     `json:"bounds"`
	Picked map[string]string `json:"picked"`
}

// flagName spells an option as build-regions' flag.
func flagName(option string) string { return "--" + strings.ReplaceAll(option, "_", "-") }

// Run builds the region graph of every model, writes regions.parquet into out
// and prints a summary per model to w.
func Run(p Params, out string, w io.Writer) error {
	b := p.Bounds()
	if err := b.Check(); err != nil {
		return fmt.Errorf("region bounds: %w", err)
	}
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	var rows []formats.RegionRow
	picked := map[string]string{}
	for _, e := range models {
		g, err := region.BuildBounded(e.Model, e.Info.Graph, p.Scheme, b)
		var be *region.BoundError
		if errors.As(err, &be) {
			return fmt.Errorf("%s: model %d (%s): %s", p.Models, e.ID, e.Info.Name, be.Describe(flagName))
		}
		if err != nil {
			return fmt.Errorf("%s: model %d (%s): %w", p.Models, e.ID, e.Info.Name, err)
		}
		valid := "yes"
		if err := g.Validate(e.Model); err != nil {
			return fmt.Errorf("%s: model %d (%s): region graph %q is not valid: %w", p.Models, e.ID, e.Info.Name, g.Scheme, err)
		}
		fmt.Fprintf(w, "model %d (%s): scheme %s, %s, largest region %d variables, valid %s\n",
			e.ID, e.Info.Name, g.Detail, describe(g), largest(g), valid)
		picked[fmt.Sprint(e.ID)] = g.Detail
		rows = append(rows, stageio.RegionRows(e.ID, g)...)
	}
	prov, err := stageio.Provenance("build-regions", provenance{Params: p, Bounds: b, Picked: picked}, 0, inputs)
	if err != nil {
		return err
	}
	return stageio.Commit(out, stageio.Output{Name: formats.RegionsFile, Write: func(path string) error { return formats.WriteRegions(path, rows, prov) }})
}

// describe gives regions per level and the counting-number histogram.
func describe(g *region.Graph) string {
	perLevel := map[int]int{}
	hist := map[float64]int{}
	maxLevel := 0
	for _, r := range g.Regions {
		perLevel[r.Level]++
		hist[r.Counting]++
		maxLevel = max(maxLevel, r.Level)
	}
	var lv []string
	for l := 0; l <= maxLevel; l++ {
		lv = append(lv, fmt.Sprint(perLevel[l]))
	}
	cs := make([]float64, 0, len(hist))
	for c := range hist {
		cs = append(cs, c)
	}
	sort.Float64s(cs)
	var hs []string
	for _, c := range cs {
		hs = append(hs, fmt.Sprintf("c=%g:%d", c, hist[c]))
	}
	return fmt.Sprintf("regions per level [%s], counting numbers {%s}", strings.Join(lv, " "), strings.Join(hs, " "))
}

func largest(g *region.Graph) int {
	n := 0
	for _, r := range g.Regions {
		n = max(n, len(r.Vars))
	}
	return n
}
