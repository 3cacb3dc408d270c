package stageio

import (
	"fmt"
	"path/filepath"

	"github.com/renn-go/renn/core/region"
	"github.com/renn-go/renn/formats"
)

// RegionRows turns a model's region graph into rows of regions.parquet.
func RegionRows(id int32, g *region.Graph) []formats.RegionRow {
	rows := make([]formats.RegionRow, len(g.Regions))
	for k, r := range g.Regions {
		rows[k] = formats.RegionRow{ModelID: id, RegionID: int32(k), Level: int32(r.Level), Vars: int32s(r.Vars),
			Factors: int32s(r.Factors), Counting: r.Counting, Parents: int32s(r.Parents), Scheme: g.Scheme}
	}
	return rows
}

// LoadRegions reads regions.parquet from dir and rebuilds the region graph of
// every model in models, checking each against its model.
func LoadRegions(dir string, models []Model) (map[int32]*region.Graph, string, error) {
	path := filepath.Join(dir, formats.RegionsFile)
	rows, prov, err := formats.ReadRegions(path)
	if err != nil {
		return nil, "", err
	}
	graphs := map[int32]*region.Graph{}
	for i, r := range rows {
		g := graphs[r.ModelID]
		if g == nil {
			g = &region.Graph{Scheme: r.Scheme}
			graphs[r.ModelID] = g
		}
		if int(r.RegionID) != len(g.Regions) {
			return nil, "", fmt.Errorf("%s: row %d: model %d region_id %d, want %d (regions must be numbered 0,1,... in order)", path, i, r.ModelID, r.RegionID, len(g.Regions))
		}
		g.Regions = append(g.Regions, region.Region{Vars: ints(r.Vars), Factors: ints(r.Factors), Level: int(r.Level),
			Counting: r.Counting, Parents: ints(r.Parents)})
	}
	for _, e := range models {
		g := graphs[e.ID]
		if g == nil {
			return nil, "", otherModels(path, prov, e, fmt.Errorf("it has no regions for model %d (%s)", e.ID, e.Info.Name))
		}
		for k := range g.Regions {
			for _, p := range g.Regions[k].Parents {
				if p < 0 || p >= len(g.Regions) {
					return nil, "", fmt.Errorf("%s: model %d region %d: parent %d out of range", path, e.ID, k, p)
				}
				g.Regions[p].Children = append(g.Regions[p].Children, k)
			}
		}
		if err := g.Validate(e.Model); err != nil {
			return nil, "", otherModels(path, prov, e, fmt.Errorf("model %d (%s): %w", e.ID, e.Info.Name, err))
		}
	}
	return graphs, path, nil
}

// otherModels says that the region graphs of path do not fit model e: they
// were built for other models (as a region graph depends on the model's
// variables and factor scopes), naming the models.parquet they were built
// from, and how the regions of these models are made. why is the first
// misfit.
func otherModels(path string, prov formats.Provenance, e Model, why error) error {
	from := ""
	for in := range prov.Inputs {
		if filepath.Base(in) == formats.ModelsFile {
			from = " (from " + in + ")"
		}
	}
	return fmt.Errorf("%s was built for other models%s, not those of --models: %w; build the regions of these models with build-regions --models on their folder",
		path, from, why)
}

func int32s(a []int) []int32 {
	out := make([]int32, len(a))
	for i, v := range a {
		out[i] = int32(v)
	}
	return out
}

func ints(a []int32) []int {
	out := make([]int, len(a))
	for i, v := range a {
		out[i] = int(v)
	}
	return out
}
