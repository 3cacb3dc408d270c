// Package buildregions is the build-regions stage: a region graph for every
// model of a directory, with its counting numbers and validity check.
package buildregions

import (
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
}

// Run builds the region graph of every model, writes regions.parquet into out
// and prints a summary per model to w.
func Run(p Params, out string, w io.Writer) error {
	models, inputs, err := stageio.LoadModels(p.Models)
	if err != nil {
		return err
	}
	var rows []formats.RegionRow
	for _, e := range models {
		g, err := region.Build(e.Model, e.Info.Graph, p.Scheme)
		if err != nil {
			return fmt.Errorf("%s: model %d (%s): %w", p.Models, e.ID, e.Info.Name, err)
		}
		valid := "yes"
		if err := g.Validate(e.Model); err != nil {
			return fmt.Errorf("%s: model %d (%s): region graph %q is not valid: %w", p.Models, e.ID, e.Info.Name, g.Scheme, err)
		}
		fmt.Fprintf(w, "model %d (%s): scheme %s, %s, largest region %d variables, valid %s\n",
			e.ID, e.Info.Name, g.Scheme, describe(g), largest(g), valid)
		rows = append(rows, stageio.RegionRows(e.ID, g)...)
	}
	prov, err := stageio.Provenance("build-regions", p, 0, inputs)
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
