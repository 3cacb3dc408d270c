package mrf

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// This file holds the benchmark families of Ising models beyond the paper's:
// the distributions of fields and couplings, and the graphs (grid, torus,
// complete, complete bipartite, random regular) with their size bounds.

// Distribution kinds of a Dist.
const (
	DistNormal  = "normal"  // N(0, Scale²)
	DistUniform = "uniform" // U(−Scale, Scale)
)

// Dist is a zero-mean distribution of Ising fields or couplings, written
// "normal:SIGMA" (N(0, σ²)) or "uniform:F" (U(−F, F)). With a scale range,
// "normal:A..B" or "uniform:A..B", every model draws its own scale from
// U(A, B) first (RandomIsingWith), as in the spin glasses of Belief
// Propagation Neural Networks (Kuck et al. 2020), whose coupling bound is
// drawn per model.
type Dist struct {
	Kind  string  // DistNormal or DistUniform
	Scale float64 // σ of a normal, F of a uniform; finite and >= 0; A of a range
	// Max is B of a scale range A..B (B > A); 0 for a fixed scale.
	Max float64
}

// Normal returns N(0, sigma²).
func Normal(sigma float64) Dist { return Dist{Kind: DistNormal, Scale: sigma} }

// Uniform returns U(−f, f).
func Uniform(f float64) Dist { return Dist{Kind: DistUniform, Scale: f} }

// ParseDist parses "normal:SIGMA" or "uniform:F", with SIGMA or F a finite
// number >= 0 (Go float syntax), or a scale range "normal:A..B" or
// "uniform:A..B" with 0 <= A < B (see Dist).
func ParseDist(s string) (Dist, error) {
	kind, num, ok := strings.Cut(s, ":")
	if !ok || (kind != DistNormal && kind != DistUniform) {
		return Dist{}, fmt.Errorf("distribution %q: want normal:SIGMA or uniform:F (or a scale range A..B)", s)
	}
	lo, hi, isRange := strings.Cut(num, "..")
	x, err := parseScale(s, lo)
	if err != nil {
		return Dist{}, err
	}
	d := Dist{Kind: kind, Scale: x}
	if isRange {
		if d.Max, err = parseScale(s, hi); err != nil {
			return Dist{}, err
		}
		if !(d.Max > d.Scale) {
			return Dist{}, fmt.Errorf("distribution %q: scale range %v..%v is empty, want A < B", s, d.Scale, d.Max)
		}
	}
	if err := d.Check(); err != nil {
		return Dist{}, fmt.Errorf("distribution %q: %w", s, err)
	}
	if d.Scale == 0 {
		d.Scale = 0 // -0 prints as 0
	}
	return d, nil
}

func parseScale(s, num string) (float64, error) {
	x, err := strconv.ParseFloat(num, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("distribution %q: scale %q is out of range", s, num)
	} else if err != nil {
		return 0, fmt.Errorf("distribution %q: scale %q is not a number", s, num)
	}
	return x, nil
}

// Check reports whether d is a known kind with a finite scale >= 0.
func (d Dist) Check() error {
	if d.Kind != DistNormal && d.Kind != DistUniform {
		return fmt.Errorf("unknown distribution kind %q (want normal or uniform)", d.Kind)
	}
	if math.IsNaN(d.Scale) || math.IsInf(d.Scale, 0) || d.Scale < 0 {
		return fmt.Errorf("scale %v must be a finite number >= 0", d.Scale)
	}
	if d.Max != 0 && (math.IsNaN(d.Max) || math.IsInf(d.Max, 0) || !(d.Max > d.Scale)) {
		return fmt.Errorf("scale range %v..%v must have finite bounds, the lower below the upper", d.Scale, d.Max)
	}
	return nil
}

// String is the form ParseDist reads, e.g. "uniform:10" or "uniform:0..5".
func (d Dist) String() string { return d.Kind + ":" + d.scaleText() }

// Short is the compact form used in model names: "n1" for normal:1, "u10"
// for uniform:10, "u0..5" for uniform:0..5.
func (d Dist) Short() string { return d.Kind[:1] + d.scaleText() }

func (d Dist) scaleText() string {
	if d.Max != 0 {
		return formatG(d.Scale) + ".." + formatG(d.Max)
	}
	return formatG(d.Scale)
}

// Fixed returns d with its scale drawn from r if d has a scale range (one
// Float64 from r), else d unchanged, drawing nothing.
func (d Dist) Fixed(r *rand.Rand) Dist {
	if d.Max == 0 {
		return d
	}
	return Dist{Kind: d.Kind, Scale: d.Scale + (d.Max-d.Scale)*r.Float64()}
}

// Draw draws one value from r: σ·NormFloat64() for a normal, F·(2·Float64()−1)
// for a uniform. Each draw consumes the stream exactly as these calls do. A
// scale range draws its scale afresh for the value (Fixed first).
func (d Dist) Draw(r *rand.Rand) float64 {
	d = d.Fixed(r)
	if d.Kind == DistUniform {
		return d.Scale * (2*r.Float64() - 1)
	}
	return d.Scale * r.NormFloat64()
}

func formatG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// RandomIsingWith draws h_i ~ fields for every node (in node order), then
// J_ij ~ couplings for every edge (in edge order), from NewRand(seed).
// A distribution with a scale range first draws the model's scale from the
// same stream (fields' before couplings'); fixed scales draw nothing, so
// their models are unchanged. RandomIsing(n, edges, gamma, seed) is
// RandomIsingWith(n, edges, Normal(gamma), Normal(1), seed), bit for bit.
func RandomIsingWith(n int, edges []Edge, fields, couplings Dist, seed int64) *Model {
	r := NewRand(seed)
	fields, couplings = fields.Fixed(r), couplings.Fixed(r)
	h := make([]float64, n)
	for i := range h {
		h[i] = fields.Draw(r)
	}
	J := make([]float64, len(edges))
	for e := range J {
		J[e] = couplings.Draw(r)
	}
	return Ising(n, edges, h, J)
}

// Size bounds of generated Ising graphs, checked before anything is
// allocated: a model costs a few hundred bytes per variable and per edge in
// memory and on disk, so 10^7 of either is already gigabytes.
const (
	MaxIsingVars  = 10_000_000
	MaxIsingEdges = 10_000_000
)

// Graph families.
const (
	GraphGrid      = "grid"      // L x L, open boundary; Size = L
	GraphTorus     = "torus"     // L x L, wrapped; Size = L >= 3
	GraphComplete  = "complete"  // K_n; Size = n
	GraphBipartite = "bipartite" // K_{Left,Right}; Size unused
	GraphRegular   = "regular"   // random Degree-regular simple graph on Size nodes
)

// Graph names an Ising graph of one of the families.
type Graph struct {
	Family      string
	Size        int // grid or torus side L; number of nodes of complete and regular
	Left, Right int // sides of bipartite: nodes 0..Left-1 and Left..Left+Right-1
	Degree      int // degree of regular
}

// Counts checks g's parameters and returns its numbers of variables and
// edges without allocating; it refuses graphs above MaxIsingVars variables or
// MaxIsingEdges edges.
func (g Graph) Counts() (vars, edges int, err error) {
	var v, e int64 // products of two numbers <= MaxIsingVars fit
	switch g.Family {
	case GraphGrid, GraphTorus:
		L := int64(g.Size)
		if L < 1 || (g.Family == GraphTorus && L < 3) {
			return 0, 0, fmt.Errorf("%s side %d too small (need >= 1, or >= 3 for a torus)", g.Family, L)
		}
		if L > MaxIsingVars {
			return 0, 0, sizeError(g.Family, L*L, 0)
		}
		v, e = L*L, 2*L*(L-1)
		if g.Family == GraphTorus {
			e = 2 * L * L
		}
	case GraphComplete:
		n := int64(g.Size)
		if n < 1 {
			return 0, 0, fmt.Errorf("complete graph needs size >= 1, got %d", n)
		}
		if n > MaxIsingVars {
			return 0, 0, sizeError(g.Family, n, 0)
		}
		v, e = n, n*(n-1)/2
	case GraphBipartite:
		l, r := int64(g.Left), int64(g.Right)
		if l < 1 || r < 1 {
			return 0, 0, fmt.Errorf("bipartite graph needs left >= 1 and right >= 1, got %d and %d", l, r)
		}
		if l > MaxIsingVars || r > MaxIsingVars {
			return 0, 0, sizeError(g.Family, l+r, 0)
		}
		v, e = l+r, l*r
	case GraphRegular:
		n, d := int64(g.Size), int64(g.Degree)
		if n < 2 {
			return 0, 0, fmt.Errorf("regular graph needs size >= 2, got %d", n)
		}
		if d < 1 || d >= n {
			return 0, 0, fmt.Errorf("regular graph on %d nodes needs 1 <= degree < %d, got %d", n, n, d)
		}
		if n*d%2 != 0 {
			return 0, 0, fmt.Errorf("no %d-regular graph on %d nodes: size*degree must be even", d, n)
		}
		if n > MaxIsingVars {
			return 0, 0, sizeError(g.Family, n, 0)
		}
		v, e = n, n*d/2
	default:
		return 0, 0, fmt.Errorf("unknown graph %q (want grid, torus, complete, bipartite or regular)", g.Family)
	}
	if v > MaxIsingVars || e > MaxIsingEdges {
		return 0, 0, sizeError(g.Family, v, e)
	}
	return int(v), int(e), nil
}

func sizeError(family string, vars, edges int64) error {
	return fmt.Errorf("%s graph with %d variables and %d edges is too large (limits %d variables, %d edges)",
		family, vars, edges, MaxIsingVars, MaxIsingEdges)
}

// Edges returns g's number of variables and its edges, sorted
// lexicographically with I < J. Only regular graphs are random: they are
// drawn from r (RegularEdges); the other families ignore r, which may be nil.
func (g Graph) Edges(r *rand.Rand) (int, []Edge, error) {
	n, _, err := g.Counts()
	if err != nil {
		return 0, nil, err
	}
	switch g.Family {
	case GraphGrid, GraphTorus:
		es, err := GridEdges(g.Size, g.Family == GraphTorus)
		return n, es, err
	case GraphComplete:
		return n, CompleteEdges(n), nil
	case GraphBipartite:
		es, err := BipartiteEdges(g.Left, g.Right)
		return n, es, err
	default: // GraphRegular; Counts rejected anything else
		if r == nil {
			return 0, nil, errors.New("regular graph needs a random stream")
		}
		es, err := RegularEdges(n, g.Degree, r)
		return n, es, err
	}
}

// BipartiteEdges returns the edges of the complete bipartite graph
// K_{left,right} (an RBM): left nodes 0..left-1, right nodes
// left..left+right-1, every left-right pair once, in lexicographic order.
func BipartiteEdges(left, right int) ([]Edge, error) {
	if _, _, err := (Graph{Family: GraphBipartite, Left: left, Right: right}).Counts(); err != nil {
		return nil, err
	}
	es := make([]Edge, 0, left*right)
	for i := 0; i < left; i++ {
		for j := 0; j < right; j++ {
			es = append(es, Edge{i, left + j})
		}
	}
	return es, nil
}

// regularAttempts is how many times RegularEdges restarts a pairing that got
// stuck before it gives up.
const regularAttempts = 100

// RegularEdges draws a random d-regular simple graph on n nodes from r and
// returns its edges in lexicographic order. It needs 1 <= d < n and n·d even.
//
// It pairs the n·d half-edges ("points", d per node) one pair at a time
// (Steger and Wormald's algorithm): a pair of distinct remaining points is
// drawn uniformly and kept if it joins two different, not yet adjacent
// nodes; after 64 rejections in a row the suitable pairs are listed and one
// is drawn with the same weights (so the result is as if drawing had gone
// on). If no suitable pair is left the pairing restarts, up to 100 times,
// then it is an error. The graph is close to, not exactly, uniform over the
// d-regular graphs. When 2d > n−1 it draws the complement, an
// (n−1−d)-regular graph, the same way and returns the edges not in it.
func RegularEdges(n, d int, r *rand.Rand) ([]Edge, error) {
	if _, _, err := (Graph{Family: GraphRegular, Size: n, Degree: d}).Counts(); err != nil {
		return nil, err
	}
	complement := 2*d > n-1
	dd := d
	if complement {
		dd = n - 1 - d
	}
	var es []Edge
	if dd > 0 {
		var ok bool
		for a := 0; a < regularAttempts && !ok; a++ {
			es, ok = pairRegular(n, dd, r)
		}
		if !ok {
			return nil, fmt.Errorf("could not draw a %d-regular graph on %d nodes in %d attempts", d, n, regularAttempts)
		}
	}
	if complement {
		in := make(map[uint64]bool, len(es))
		for _, e := range es {
			in[edgeKey(e.I, e.J)] = true
		}
		out := make([]Edge, 0, n*d/2)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if !in[edgeKey(i, j)] {
					out = append(out, Edge{i, j})
				}
			}
		}
		return out, nil // already in order
	}
	sortEdges(es)
	return es, nil
}

func edgeKey(i, j int) uint64 {
	if i > j {
		i, j = j, i
	}
	return uint64(i)<<32 | uint64(j)
}

func sortEdges(es []Edge) {
	sort.Slice(es, func(a, b int) bool {
		if es[a].I != es[b].I {
			return es[a].I < es[b].I
		}
		return es[a].J < es[b].J
	})
}

// pairRegular makes one attempt of RegularEdges' pairing; false if it got stuck.
func pairRegular(n, d int, r *rand.Rand) ([]Edge, bool) {
	p := &pairing{pts: make([]int32, n*d), adj: make(map[uint64]struct{}, n*d/2), es: make([]Edge, 0, n*d/2), count: make([]int, n)}
	for k := range p.pts {
		p.pts[k] = int32(k / d) // the node of every remaining point
	}
	for len(p.pts) > 0 {
		if p.pairRandom(r) {
			continue
		}
		if !p.pairWeighted(r) {
			return nil, false
		}
	}
	return p.es, true
}

// pairing is the state of one attempt of pairRegular.
type pairing struct {
	pts   []int32             // the node of every remaining point
	adj   map[uint64]struct{} // the edges joined
	es    []Edge              // the edges joined, in order
	count []int               // scratch, zero between uses
}

// remove drops point k; the order of pts does not matter.
func (p *pairing) remove(k int) {
	last := len(p.pts) - 1
	p.pts[k] = p.pts[last]
	p.pts = p.pts[:last]
}

// join adds the edge u-v.
func (p *pairing) join(u, v int) {
	if u > v {
		u, v = v, u
	}
	p.adj[edgeKey(u, v)] = struct{}{}
	p.es = append(p.es, Edge{u, v})
}

// suitable says whether u-v may be joined: no loop, no second edge.
func (p *pairing) suitable(u, v int) bool {
	if u == v {
		return false
	}
	_, dup := p.adj[edgeKey(u, v)]
	return !dup
}

// pairRandom draws pairs of points until one joins a suitable node pair,
// at most 64 times; false if none did.
func (p *pairing) pairRandom(r *rand.Rand) bool {
	for try := 0; try < 64; try++ {
		a := r.IntN(len(p.pts))
		b := r.IntN(len(p.pts) - 1)
		if b >= a {
			b++
		}
		u, v := int(p.pts[a]), int(p.pts[b])
		if !p.suitable(u, v) {
			continue
		}
		p.join(u, v)
		if a < b { // remove the larger index first
			a, b = b, a
		}
		p.remove(a)
		p.remove(b)
		return true
	}
	return false
}

// pairWeighted, after many rejections in a row, lists the suitable node
// pairs, weighted by their numbers of point pairs, and joins one drawn from
// them; false if there is none.
func (p *pairing) pairWeighted(r *rand.Rand) bool {
	var nodes []int
	for _, u := range p.pts {
		if p.count[u] == 0 {
			nodes = append(nodes, int(u))
		}
		p.count[u]++
	}
	sort.Ints(nodes)
	type cand struct{ u, v, w int }
	var cands []cand
	total := 0
	for x, u := range nodes {
		for _, v := range nodes[x+1:] {
			if p.suitable(u, v) {
				w := p.count[u] * p.count[v]
				cands = append(cands, cand{u, v, w})
				total += w
			}
		}
	}
	for _, u := range nodes {
		p.count[u] = 0
	}
	if total == 0 {
		return false
	}
	pick := r.IntN(total)
	c := cands[len(cands)-1]
	for _, cc := range cands {
		if pick < cc.w {
			c = cc
			break
		}
		pick -= cc.w
	}
	p.join(c.u, c.v)
	for _, w := range []int{c.u, c.v} {
		for k, pt := range p.pts {
			if int(pt) == w {
				p.remove(k)
				break
			}
		}
	}
	return true
}
