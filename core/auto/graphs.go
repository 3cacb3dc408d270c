package auto

import (
	"fmt"

	"github.com/renn-go/renn/core/mrf"
	"github.com/renn-go/renn/core/region"
)

// blocks3MaxStates bounds the joint states of a blocks3 root: 3x3 windows of
// binary variables (512 states) and of three states (19683) qualify, of four
// states (262144) not, as one sweep would then touch tens of millions of
// entries on a 20x20 lattice.
const blocks3MaxStates = 1 << 15

// maxGraphStates bounds the joint states summed over the regions of a
// region graph auto runs GBP on, so that a sweep stays within tens of
// milliseconds to a second.
const maxGraphStates = 1 << 25

// regionGraph is a region graph auto may run GBP on.
type regionGraph struct {
	name string // its scheme as run: "blocks3", "faces", "cycles", ...
	g    *region.Graph
}

// regionGraphs returns the region graphs auto runs GBP on, largest first:
// on a lattice (an L x L grid or torus, however its variables are
// numbered) the 3x3 blocks and the plaquettes, then the auto scheme's
// graph (bounded cycles on other models; region.RootSetsBounded), unless it
// repeats one already listed. Loopy BP is the Bethe graph's run, after
// these. A graph that cannot be built, or is too large, is left out, and
// why goes to notes.
func regionGraphs(m *mrf.Model) (gs []regionGraph, notes []string) {
	try := func(name string, build func() (*region.Graph, error)) {
		g, err := build()
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", name, err))
			return
		}
		if s := graphStates(m, g); s > maxGraphStates {
			notes = append(notes, fmt.Sprintf("%s: %d joint states over its regions, above %d", name, s, maxGraphStates))
			return
		}
		for _, h := range gs {
			if h.g.Scheme == g.Scheme && len(h.g.Regions) == len(g.Regions) {
				return
			}
		}
		gs = append(gs, regionGraph{name: g.Scheme, g: g})
	}
	// "uai" says nothing of the shape, so every scheme looks at the model.
	const graph = "uai"
	if lattice(m) {
		try(region.Blocks3, func() (*region.Graph, error) {
			return region.BuildBounded(m, graph, region.Blocks3, region.Bounds{MaxStates: blocks3MaxStates})
		})
		try(region.Faces, func() (*region.Graph, error) { return region.Build(m, graph, region.Faces) })
	}
	try(region.Auto, func() (*region.Graph, error) { return region.Build(m, graph, region.Auto) })
	return gs, notes
}

// lattice reports whether m's interaction graph is an L x L grid or torus.
func lattice(m *mrf.Model) bool {
	_, _, err := region.RootSets(m, "uai", region.Faces)
	return err == nil
}

// graphStates returns the joint states summed over g's regions.
func graphStates(m *mrf.Model, g *region.Graph) int64 {
	var s int64
	for _, r := range g.Regions {
		n := int64(1)
		for _, v := range r.Vars {
			n *= int64(m.Cards[v])
			if n > maxGraphStates {
				return maxGraphStates + 1
			}
		}
		s += n
		if s > maxGraphStates {
			return s
		}
	}
	return s
}
