package samplemodel

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/mrf"
)

// Patterns of --hide; anything else is a list of variable indices.
const (
	HideLeft         = "left"         // bipartite: the left nodes 0..N-1
	HideRight        = "right"        // bipartite: the right nodes N..N+M-1 (an RBM)
	HideInterior     = "interior"     // grid: every node off the boundary ((L-2)² nodes; 9 on 5x5)
	HideQuarter      = "quarter"      // grid or torus: row and column both odd (0-based); L²/4 nodes for even L, 4 on 5x5
	HideCheckerboard = "checkerboard" // grid or torus: row + column odd (half the nodes, no two hidden nodes adjacent)
)

// hiddenVars resolves the --hide spec for a model of n variables; graph is
// the generator's graph, nil for models without a known layout (imported
// or factor-family models), which take a list only. The result is
// strictly increasing and leaves at least one variable visible.
func hiddenVars(spec string, graph *mrf.Graph, n int) ([]int, error) {
	if spec == "" {
		return nil, nil
	}
	family := ""
	if graph != nil {
		family = graph.Family
	}
	var hidden []int
	switch spec {
	case HideLeft, HideRight:
		if family != mrf.GraphBipartite {
			return nil, fmt.Errorf("--hide %s is for --graph bipartite", spec)
		}
		lo, hi := 0, graph.Left
		if spec == HideRight {
			lo, hi = graph.Left, graph.Left+graph.Right
		}
		for v := lo; v < hi; v++ {
			hidden = append(hidden, v)
		}
	case HideInterior, HideQuarter, HideCheckerboard:
		if family != mrf.GraphGrid && (family != mrf.GraphTorus || spec == HideInterior) {
			want := "--graph grid or torus"
			if spec == HideInterior {
				want = "--graph grid (a torus has no boundary)"
			}
			return nil, fmt.Errorf("--hide %s is for %s", spec, want)
		}
		L := graph.Size
		for r := 0; r < L; r++ {
			for c := 0; c < L; c++ {
				var hide bool
				switch spec {
				case HideInterior:
					hide = r > 0 && c > 0 && r < L-1 && c < L-1
				case HideQuarter:
					hide = r%2 == 1 && c%2 == 1
				case HideCheckerboard:
					hide = (r+c)%2 == 1
				}
				if hide {
					hidden = append(hidden, r*L+c)
				}
			}
		}
		if len(hidden) == 0 {
			return nil, fmt.Errorf("--hide %s hides no node of a %dx%d grid", spec, L, L)
		}
	default:
		for _, f := range strings.Split(spec, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return nil, fmt.Errorf("--hide %q: %q is neither a pattern (right, left, interior, quarter, checkerboard) nor a variable index", spec, f)
			}
			if v < 0 || v >= n {
				return nil, fmt.Errorf("--hide: variable %d out of range [0,%d)", v, n)
			}
			if slices.Contains(hidden, v) {
				return nil, fmt.Errorf("--hide: variable %d listed twice", v)
			}
			hidden = append(hidden, v)
		}
		slices.Sort(hidden)
	}
	if err := mrf.CheckHidden(hidden, n); err != nil {
		return nil, fmt.Errorf("--hide %s: %w", spec, err)
	}
	return hidden, nil
}

// hideSource is what a model's source gains from --hide.
func hideSource(spec string) string {
	if spec == "" {
		return ""
	}
	return " hide=" + spec
}
