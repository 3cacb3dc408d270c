package outputs

// Naming settings: by the family of their models (settingLabel), by kind
// and shape (shapeLabel), by the side of a square grid (Label, CostLabels).

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/formats"
)

// settingLabel describes a model's family from its model_info: the graph
// (from the name's first part: grid10, torus10, complete16,
// bipartite20x20), then the coupling and field distributions (from the
// source; the paper's family records none: couplings N(0,1), fields
// N(0, gamma^2)).
func settingLabel(info formats.ModelInfoRow) string {
	head, _, _ := strings.Cut(info.Name, "-")
	kind, shape := shapeLabel(head)
	switch kind {
	case "grid", "torus", "bipartite":
	case "complete":
		shape = "K" + strings.TrimPrefix(head, kind)
	default:
		shape = head
	}
	couplings, fields := "normal:1", "normal:"+strconv.FormatFloat(info.Gamma, 'g', -1, 64)
	for _, f := range strings.Fields(info.Source) {
		if v, ok := strings.CutPrefix(f, "couplings="); ok {
			couplings = v
		}
		if v, ok := strings.CutPrefix(f, "fields="); ok {
			fields = v
		}
	}
	return fmt.Sprintf("%s, J ~ %s, h ~ %s", shape, distText(couplings), distText(fields))
}

// distText writes normal:σ as N(0,σ²) and uniform:F as U(−F,F).
func distText(d string) string {
	kind, scale, ok := strings.Cut(d, ":")
	if !ok {
		return d
	}
	switch kind {
	case "normal":
		if scale == "1" {
			return "N(0,1)"
		}
		return "N(0," + scale + "²)"
	case "uniform":
		return "U(−" + scale + "," + scale + ")"
	}
	return d
}

// shapeLabel names the models of a setting key (a model's name without its
// index) by their kind and shape: "grid 24x24", "bipartite 16+16",
// "csp 200", "noisy-or 100"; the kind orders them.
func shapeLabel(key string) (kind, label string) {
	if i := strings.Index(key, "-J"); i > 0 {
		key = key[:i] // sample-model ising's couplings and fields
	}
	key = strings.TrimSuffix(key, ".uai")
	num := strings.TrimLeft(key, "abcdefghijklmnopqrstuvwxyz-_")
	kind = strings.TrimSuffix(key, num)
	switch {
	case num == "":
		return key, key
	case kind == "grid" || kind == "torus":
		return kind, fmt.Sprintf("%s %sx%s", kind, num, num)
	case kind == "bipartite":
		return kind, "bipartite " + strings.Replace(num, "x", "+", 1)
	}
	return kind, kind + " " + num
}

// Label names a setting as the reader's Labels say: "side", the
// side of a square grid (10x10), else graph and size.
func (s *Reader) Label(g *Setting) string {
	if s.Labels == "side" {
		return cmp.Or(squareSide(g, "grid"), fmt.Sprintf("%s n=%d", g.Graph, g.Size))
	}
	return g.Label
}

// CostLabels names the settings: the side of a square grid or torus
// (300x300), else the number of variables; with the graph when there are
// several, with gamma when there are several.
func (s *Reader) CostLabels() {
	graphs, gammas := map[string]bool{}, map[float64]bool{}
	for _, g := range s.Settings {
		graphs[g.Graph], gammas[g.Gamma] = true, true
	}
	for _, g := range s.Settings {
		g.Label = cmp.Or(squareSide(g, "grid", "torus"), fmt.Sprintf("n=%d", g.Size))
		if len(graphs) > 1 {
			g.Label = g.Graph + " " + g.Label
		}
		if len(gammas) > 1 {
			g.Label += " γ=" + strconv.FormatFloat(g.Gamma, 'g', -1, 64)
		}
	}
	head := &Fact{Num: map[string]float64{}, Text: map[string]string{"head": "model"}}
	if len(graphs) == 1 {
		head.Text["head"] = slices.Collect(maps.Keys(graphs))[0]
	}
	s.Add(head)
}

// squareSide names the size of a square grid of one of graphs ("10x10"),
// "" for any other.
func squareSide(g *Setting, graphs ...string) string {
	if l := int(math.Round(math.Sqrt(float64(g.Size)))); slices.Contains(graphs, g.Graph) && l*l == g.Size {
		return fmt.Sprintf("%dx%d", l, l)
	}
	return ""
}
