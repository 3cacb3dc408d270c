package mrf

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// A potts model has the promised shape: N variables of K states, one unary
// factor each, Edges distinct pairwise factors on a connected graph whose
// elimination in reverse k-tree order never meets more than k neighbours
// (treewidth at most k), and log-potentials of the documented scale.
func TestPottsShape(t *testing.T) {
	for _, p := range []Potts{DefaultPotts(60), {N: 30, K: 3, Treewidth: 2, Edges: 40}, {N: 12, K: 5, Treewidth: 11, Edges: 66}, {N: 2, K: 2, Treewidth: 1, Edges: 1}} {
		m, err := p.Generate(4)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		again, _ := p.Generate(4)
		if !reflect.DeepEqual(m, again) {
			t.Errorf("%+v: same seed, different models", p)
		}
		if len(m.Cards) != p.N || len(m.Factors) != p.N+p.Edges {
			t.Fatalf("%+v: %d variables, %d factors", p, len(m.Cards), len(m.Factors))
		}
		adj := make([]map[int]bool, p.N)
		for i := range adj {
			adj[i] = map[int]bool{}
		}
		var diag, off []float64
		for a, f := range m.Factors {
			if a < p.N {
				if len(f.Vars) != 1 || f.Vars[0] != a || len(f.LogTable) != p.K {
					t.Fatalf("factor %d: %v", a, f.Vars)
				}
				continue
			}
			u, v := f.Vars[0], f.Vars[1]
			if len(f.Vars) != 2 || u == v || adj[u][v] || len(f.LogTable) != p.K*p.K {
				t.Fatalf("factor %d over %v repeats an edge or is malformed", a, f.Vars)
			}
			adj[u][v], adj[v][u] = true, true
			for x, l := range f.LogTable {
				if x/p.K == x%p.K {
					diag = append(diag, l)
				} else {
					off = append(off, l)
				}
			}
		}
		_, order := p.graph(NewRand(4))
		seen := map[int]bool{}
		var visit func(int)
		visit = func(v int) {
			seen[v] = true
			for u := range adj[v] {
				if !seen[u] {
					visit(u)
				}
			}
		}
		visit(0)
		if len(seen) != p.N {
			t.Errorf("%+v: graph not connected", p)
		}
		width := 0
		for i := len(order) - 1; i >= 0; i-- {
			v := order[i]
			width = max(width, len(adj[v]))
			for a := range adj[v] {
				for b := range adj[v] {
					if a != b {
						adj[a][b] = true
					}
				}
				delete(adj[a], v)
			}
			adj[v] = nil
		}
		if width > p.Treewidth {
			t.Errorf("%+v: reverse k-tree order eliminates %d neighbours at once", p, width)
		}
		if len(off) > 100 {
			// Off-diagonal entries ~ N(0, PottsNoise²); diagonal ones are
			// shifted up by J ~ U(0, PottsCoupling), PottsCoupling/2 on average.
			mo, md := mean(off), mean(diag)
			if math.Abs(mo) > 0.1 || math.Abs(md-mo-PottsCoupling/2) > 0.3 {
				t.Errorf("%+v: off-diagonal mean %.3f, diagonal mean %.3f", p, mo, md)
			}
		}
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func TestPottsCheck(t *testing.T) {
	for _, tt := range []struct {
		p    Potts
		want string
	}{
		{Potts{N: 1, K: 3, Treewidth: 1, Edges: 0}, "size"},
		{Potts{N: 10, K: 1, Treewidth: 2, Edges: 12}, "states"},
		{Potts{N: 10, K: 5000, Treewidth: 2, Edges: 12}, "states"},
		{Potts{N: 10, K: 3, Treewidth: 10, Edges: 12}, "treewidth"},
		{Potts{N: 10, K: 3, Treewidth: 0, Edges: 12}, "treewidth"},
		{Potts{N: 10, K: 3, Treewidth: 2, Edges: 8}, "edges"},
		{Potts{N: 10, K: 3, Treewidth: 2, Edges: 18}, "edges"},
	} {
		err := tt.p.Check()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error about %s", tt.p, err, tt.want)
		}
		if _, gerr := tt.p.Generate(1); gerr == nil {
			t.Errorf("%+v: Generate accepted it", tt.p)
		}
	}
	if err := (Potts{N: 10, K: 3, Treewidth: 2, Edges: 17}).Check(); err != nil {
		t.Errorf("the most edges of a 2-tree on 10 variables: %v", err)
	}
}
