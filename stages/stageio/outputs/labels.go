package outputs

import (
	"fmt"
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
