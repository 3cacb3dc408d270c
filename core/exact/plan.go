package exact

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/mrf"
)

// DefaultMaxTable is the largest clique table, in entries, that Solve and
// Sample accept by default (DefaultOptions). 2^28 float64 entries are 2 GiB.
// The clique table itself is summed on the fly and never stored, but its
// messages (up to half of it each), the downward messages, checkpoints and
// pooled buffers are of that order, so this is about as wide as a 24 GiB
// machine can go without swapping; each such step also takes seconds.
const DefaultMaxTable = 1 << 28

// DefaultTries is the number of randomised greedy orders tried per heuristic
// by default (DefaultOptions).
const DefaultTries = 16

// DefaultMemory is the budget in bytes for stored forward messages
// by default (DefaultOptions).
const DefaultMemory = 1 << 30

// Options controls planning and the memory/time trade-off of exact inference.
type Options struct {
	// MaxTable is the largest table (entries) allowed, >= 1. Solve slices
	// a model whose plan needs larger tables (each slice fixes a few
	// variables and keeps every table within MaxTable); Sample and
	// MakeOrder fail with a *TableTooLargeError before anything is
	// allocated.
	MaxTable int64 `json:"max_table" help:"Largest table (entries) exact inference may build. A model whose plan needs larger tables is solved in slices (a few variables fixed in turn, every table of a slice within the bound); exact sampling stops with an error instead, before allocating."`
	// Tries is the most randomised orders tried per greedy heuristic
	// (min-fill and min-degree), >= 1. MakeOrder and Sample stop after one
	// round when the best order is over four times MaxTable; Solve stops
	// when the orders' time has reached half of its planning budget (a
	// fraction of the estimated solve time, bounded).
	Tries int `json:"tries" help:"The most randomised elimination orders tried per greedy heuristic (fewer for a model quick to solve)."`
	// Seed drives the random tie-breaking of the greedy heuristics: the same
	// seed gives the same order and hence bit-identical results.
	Seed int64 `json:"seed" help:"Seed of the randomised elimination-order search."`
	// Memory is the budget in bytes for stored forward messages, >= 1.
	// Forward messages beyond it are recomputed from checkpoints in the
	// backward pass. Working tables come on top of it.
	Memory int64 `json:"memory" help:"Budget in bytes for stored forward messages; beyond it they are recomputed in the backward pass."`
	// MaxMemory bounds the estimated peak memory in bytes of one solve (all
	// tables and messages alive at once, working tables included), >= 1.
	// Larger solves fail with a *MemoryTooLargeError before anything is
	// allocated. MaxTable bounds one table; this bounds their sum.
	MaxMemory int64 `json:"max_memory" help:"Largest estimated peak memory in bytes of one exact solve, or of one slice of it (all tables alive at once); a solve above it is sliced further, and one that cannot fit even sliced stops with an error before allocating. Default: half of the machine's memory."`
	// MaxPlannedSeconds bounds the estimated run time of Solve (Plan.Seconds), >
	// 0: a plan above it, sliced to fit MaxTable and MaxMemory, fails with
	// a *TooSlowError before anything is allocated.
	MaxPlannedSeconds float64 `json:"max_planned_seconds" help:"Largest estimated run time in seconds of one exact solve (the plan's estimate, printed before running); a model above it stops with an error before allocating."`
	// OnPlan, if set, is called by Solve with the plan (and its cost)
	// before anything is contracted, so a caller can report it. It is not
	// an option of the command line.
	OnPlan func(*Plan) `json:"-" kong:"-"`
}

// DefaultMaxPlannedSeconds is the bound on the estimated run time of a solve by
// default (DefaultOptions): an hour.
const DefaultMaxPlannedSeconds = 3600

// DefaultOptions returns the documented defaults: DefaultMaxTable,
// DefaultTries, seed 1, DefaultMemory, DefaultMaxMemory() and
// DefaultMaxPlannedSeconds.
func DefaultOptions() Options {
	return Options{MaxTable: DefaultMaxTable, Tries: DefaultTries, Seed: 1, Memory: DefaultMemory,
		MaxMemory: DefaultMaxMemory(), MaxPlannedSeconds: DefaultMaxPlannedSeconds}
}

// Check reports whether o is valid; the error names the option.
func (o Options) Check() error {
	_, err := o.resolve()
	return err
}

func (o Options) resolve() (Options, error) {
	switch {
	case o.MaxTable < 1:
		return o, fmt.Errorf("exact: max_table %d, want >= 1", o.MaxTable)
	case o.Tries < 1:
		return o, fmt.Errorf("exact: tries %d, want >= 1", o.Tries)
	case o.Memory < 1:
		return o, fmt.Errorf("exact: memory %d, want >= 1", o.Memory)
	case o.MaxMemory < 1:
		return o, fmt.Errorf("exact: max_memory %d, want >= 1", o.MaxMemory)
	case !(o.MaxPlannedSeconds > 0) || math.IsInf(o.MaxPlannedSeconds, 1):
		return o, fmt.Errorf("exact: max_planned_seconds %v, want a finite number > 0", o.MaxPlannedSeconds)
	}
	return o, nil
}

// Order is an elimination order and what it costs. Sample eliminates
// along it; Solve contracts along a plan (Plan) that starts from such
// orders.
type Order struct {
	Vars         []int   // variables in elimination order (every variable once)
	LargestTable int64   // entries of the largest clique table (saturates at MaxInt64)
	TotalCost    float64 // sum over elimination steps of the clique table size
	Heuristic    string  // which heuristic found Vars
	// Memory is the estimated peak memory in bytes of sampling along it,
	// set by Sample (0 from MakeOrder, which builds no tables).
	Memory int64
	// LargestClique lists the variables of the largest clique table: the
	// eliminated variable, then the others in increasing order.
	LargestClique []int
}

// TableTooLargeError reports that the best elimination order found needs a
// clique table above Options.MaxTable.
type TableTooLargeError struct {
	Order    *Order
	Cards    []int // cardinalities of the model's variables
	MaxTable int64
}

func (e *TableTooLargeError) Error() string {
	log2 := 0.0
	for _, v := range e.Order.LargestClique {
		log2 += math.Log2(float64(e.Cards[v]))
	}
	vars := make([]string, 0, 12)
	for i, v := range e.Order.LargestClique {
		if i == 10 {
			vars = append(vars, fmt.Sprintf("... %d more", len(e.Order.LargestClique)-10))
			break
		}
		vars = append(vars, fmt.Sprint(v))
	}
	return fmt.Sprintf("exact inference needs a table of 2^%.1f entries (%d variables: %s), above --max-table 2^%.1f; "+
		"the best %s order has total cost 2^%.1f, so this model is too wide for exact inference",
		log2, len(e.Order.LargestClique), strings.Join(vars, " "), math.Log2(float64(e.MaxTable)),
		e.Order.Heuristic, math.Log2(e.Order.TotalCost))
}

// MakeOrder chooses an elimination order for m: the cheapest (smallest sum of
// clique table sizes, then smallest largest table) of a bandwidth order
// (Cuthill-McKee from a pseudo-peripheral vertex, and its reverse) and
// opt.Tries randomised greedy min-fill and min-degree orders, each abandoned
// as soon as it cannot beat the best so far. Cardinalities count: a variable
// of cardinality 1 costs nothing. If the best order needs a table above
// opt.MaxTable, MakeOrder returns the order together with a
// *TableTooLargeError.
func MakeOrder(m *mrf.Model, opt Options) (*Order, error) {
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("exact: invalid model: %w", err)
	}
	g := newGraph(m.Cards, reducedScopes(m))
	return g.order(opt)
}

// reducedScopes returns every factor's scope without its cardinality-1
// variables, in the factor's own order. Dropping them leaves the row-major
// table layout unchanged (their stride contributes nothing).
func reducedScopes(m *mrf.Model) [][]int {
	out := make([][]int, len(m.Factors))
	for a, f := range m.Factors {
		s := make([]int, 0, len(f.Vars))
		for _, v := range f.Vars {
			if m.Cards[v] > 1 {
				s = append(s, v)
			}
		}
		out[a] = s
	}
	return out
}

// graph is the interaction graph of a model: variables are adjacent when they
// share a factor.
type graph struct {
	cards []int
	card  []float64 // cardinalities as floats
	w     []float64 // log2 of each cardinality
	adj   [][]int32 // sorted neighbour lists
	bits  []uint64  // scratch adjacency matrix reused by successive orders
}

func newGraph(cards []int, scopes [][]int) *graph {
	n := len(cards)
	g := &graph{cards: cards, card: make([]float64, n), w: make([]float64, n), adj: make([][]int32, n)}
	for v, c := range cards {
		g.card[v] = float64(c)
		g.w[v] = math.Log2(float64(c))
	}
	for _, s := range scopes {
		for i, u := range s {
			for _, v := range s[i+1:] {
				g.adj[u] = append(g.adj[u], int32(v))
				g.adj[v] = append(g.adj[v], int32(u))
			}
		}
	}
	for v := range g.adj {
		slices.Sort(g.adj[v])
		g.adj[v] = slices.Compact(g.adj[v])
	}
	return g
}

// candidate is one evaluated order.
type candidate struct {
	order     []int32
	cost      float64 // sum of clique sizes
	largest   float64 // log2 of the largest clique size
	heuristic string
}

// better reports whether a beats b. An order that fits under the table limit
// beats one that does not; among fitting orders the smaller total cost wins,
// then the smaller largest table; among orders that do not fit the smaller
// largest table wins (it is what the error reports), then the cost.
func better(a, b *candidate, maxLog2 float64) bool {
	if b == nil {
		return true
	}
	fa, fb := a.largest <= maxLog2, b.largest <= maxLog2
	switch {
	case fa != fb:
		return fa
	case fa && a.cost != b.cost:
		return a.cost < b.cost
	case fa:
		return a.largest < b.largest
	case a.largest != b.largest:
		return a.largest < b.largest
	}
	return a.cost < b.cost
}

// prune reports whether a partial order with the given cost and largest
// clique can no longer beat best (both only grow as elimination goes on).
func prune(cost, largest float64, best *candidate, maxLog2 float64) bool {
	if best == nil {
		return false
	}
	if best.largest <= maxLog2 {
		return largest > maxLog2 || cost > best.cost || (cost == best.cost && largest >= best.largest)
	}
	return largest > best.largest || (largest == best.largest && cost >= best.cost)
}

func (g *graph) order(opt Options) (*Order, error) {
	// Compare log2 sizes with a little slack: sums of log2(3) are inexact.
	maxLog2 := math.Log2(float64(opt.MaxTable)) + 1e-9
	var best *candidate
	consider := func(c *candidate) {
		if c != nil && better(c, best, maxLog2) {
			best = c
		}
	}
	cm := g.cuthillMcKee()
	consider(g.evaluate(cm, "bandwidth", best, maxLog2))
	rev := slices.Clone(cm)
	slices.Reverse(rev)
	consider(g.evaluate(rev, "bandwidth-reversed", best, maxLog2))
	rng := mrf.NewRand(opt.Seed)
	for t := 0; t < opt.Tries; t++ {
		consider(g.greedy(minDegree, rng, best, maxLog2))
		consider(g.greedy(minFill, rng, best, maxLog2))
		// Random tie-breaking does not shrink tables by factors of four:
		// after one round a model that far over the limit is hopeless.
		if best.largest > maxLog2+2 {
			break
		}
	}
	plan := g.finish(best)
	if plan.LargestTable > opt.MaxTable {
		return plan, &TableTooLargeError{Order: plan, Cards: g.cards, MaxTable: opt.MaxTable}
	}
	return plan, nil
}

// finish turns the winning candidate into an Order with exact sizes.
func (g *graph) finish(c *candidate) *Order {
	p := &Order{Vars: make([]int, len(c.order)), TotalCost: c.cost, Heuristic: c.heuristic}
	for i, v := range c.order {
		p.Vars[i] = int(v)
	}
	cliques := g.cliques(c.order)
	for k, cl := range cliques {
		size := int64(1)
		for _, u := range cl {
			size = satMul(size, int64(g.cards[u]))
		}
		if k == 0 || size > p.LargestTable {
			p.LargestTable = size
			p.LargestClique = make([]int, len(cl))
			for i, u := range cl {
				p.LargestClique[i] = int(u)
			}
			slices.Sort(p.LargestClique[1:])
		}
	}
	return p
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// elim is an interaction graph under elimination. Besides neighbour lists it
// keeps an adjacency bit matrix when the graph is small enough (bitLimit
// variables), which makes fill-in counts cheap once neighbourhoods grow large.
type elim struct {
	w     []float64
	card  []float64
	adj   [][]int32
	mark  []uint32 // scratch marks, valid when equal to stamp
	stamp uint32
	fill  [][2]int32 // fill edges added by the last elimination
	bits  []uint64   // row v holds words [v*words, (v+1)*words); nil if unused
	words int
}

// bitLimit bounds the graphs that get an adjacency bit matrix (8 MiB).
const bitLimit = 1 << 13

func (g *graph) newElim() *elim {
	n := len(g.adj)
	e := &elim{w: g.w, card: g.card, adj: make([][]int32, n), mark: make([]uint32, n)}
	for v, a := range g.adj {
		e.adj[v] = append(make([]int32, 0, len(a)+4), a...)
	}
	if n <= bitLimit {
		e.words = (n + 63) / 64
		if len(g.bits) != n*e.words {
			g.bits = make([]uint64, n*e.words)
		} else {
			clear(g.bits)
		}
		e.bits = g.bits // tries run one after another, so they share it
		for v, a := range g.adj {
			for _, u := range a {
				e.setBit(int32(v), u)
			}
		}
	}
	return e
}

func (e *elim) setBit(a, b int32) { e.bits[int(a)*e.words+int(b>>6)] |= 1 << uint(b&63) }
func (e *elim) clearBit(a, b int32) {
	e.bits[int(a)*e.words+int(b>>6)] &^= 1 << uint(b&63)
}
func (e *elim) bit(a, b int32) bool {
	return e.bits[int(a)*e.words+int(b>>6)]&(1<<uint(b&63)) != 0
}
func (e *elim) row(a int32) []uint64 { return e.bits[int(a)*e.words : int(a+1)*e.words] }

func (e *elim) nextStamp() uint32 {
	e.stamp++
	if e.stamp == 0 {
		clear(e.mark)
		e.stamp = 1
	}
	return e.stamp
}

// eliminate removes v, joins its neighbours into a clique (recording the fill
// edges in e.fill), and returns the neighbours, log2 of the clique size and
// the size itself (exact below 2^53, +Inf beyond the float64 range).
func (e *elim) eliminate(v int32) ([]int32, float64, float64) {
	nb := e.adj[v]
	size := e.w[v]
	prod := e.card[v]
	for _, u := range nb {
		size += e.w[u]
		prod *= e.card[u]
		a := e.adj[u]
		for i, x := range a {
			if x == v {
				a[i] = a[len(a)-1]
				e.adj[u] = a[:len(a)-1]
				break
			}
		}
		if e.bits != nil {
			e.clearBit(u, v)
		}
	}
	e.fill = e.fill[:0]
	for i, a := range nb {
		if e.bits != nil {
			for _, b := range nb[i+1:] {
				if !e.bit(a, b) {
					e.addEdge(a, b)
				}
			}
			continue
		}
		s := e.nextStamp()
		for _, x := range e.adj[a] {
			e.mark[x] = s
		}
		for _, b := range nb[i+1:] {
			if e.mark[b] != s {
				e.addEdge(a, b)
			}
		}
	}
	e.adj[v] = nil
	return nb, size, prod
}

func (e *elim) addEdge(a, b int32) {
	e.adj[a] = append(e.adj[a], b)
	e.adj[b] = append(e.adj[b], a)
	e.fill = append(e.fill, [2]int32{a, b})
	if e.bits != nil {
		e.setBit(a, b)
		e.setBit(b, a)
	}
}

// fillIn returns the number of edges eliminating u would add.
func (e *elim) fillIn(u int32) float64 {
	nb := e.adj[u]
	d := len(nb)
	inside := 0
	if e.bits != nil && d > e.words {
		ru := e.row(u)
		for _, x := range nb {
			for i, w := range e.row(x) {
				inside += bits.OnesCount64(w & ru[i])
			}
		}
	} else {
		s := e.nextStamp()
		for _, x := range nb {
			e.mark[x] = s
		}
		for _, x := range nb {
			for _, y := range e.adj[x] {
				if e.mark[y] == s {
					inside++
				}
			}
		}
	}
	return float64(d*(d-1)/2 - inside/2)
}

// commonNeighbours calls f for every common neighbour of a and b.
func (e *elim) commonNeighbours(a, b int32, f func(int32)) {
	if e.bits != nil {
		for _, y := range e.adj[b] {
			if e.bit(a, y) {
				f(y)
			}
		}
		return
	}
	s := e.nextStamp()
	for _, x := range e.adj[a] {
		e.mark[x] = s
	}
	for _, y := range e.adj[b] {
		if e.mark[y] == s {
			f(y)
		}
	}
}

// weight returns log2 of the clique size eliminating u would create.
func (e *elim) weight(u int32) float64 {
	s := e.w[u]
	for _, x := range e.adj[u] {
		s += e.w[x]
	}
	return s
}

// cliques returns, for each step of order, the eliminated variable followed
// by its neighbours at elimination time.
func (g *graph) cliques(order []int32) [][]int32 {
	e := g.newElim()
	out := make([][]int32, len(order))
	for k, v := range order {
		nb, _, _ := e.eliminate(v)
		cl := make([]int32, 0, len(nb)+1)
		out[k] = append(append(cl, v), nb...)
	}
	return out
}

// evaluate costs a fixed order; nil if it cannot beat best.
func (g *graph) evaluate(order []int32, name string, best *candidate, maxLog2 float64) *candidate {
	e := g.newElim()
	c := &candidate{order: order, heuristic: name, largest: math.Inf(-1)}
	for _, v := range order {
		_, size, prod := e.eliminate(v)
		c.cost += prod
		c.largest = max(c.largest, size)
		if prune(c.cost, c.largest, best, maxLog2) {
			return nil
		}
	}
	return c
}

const (
	minDegree = iota // smallest clique table first (weighted min-degree)
	minFill          // fewest fill edges first, then smallest clique table
)

// greedy builds one randomised greedy order; nil if it cannot beat best.
func (g *graph) greedy(kind int, rng *rand.Rand, best *candidate, maxLog2 float64) *candidate {
	n := len(g.adj)
	e := g.newElim()
	h := newVHeap(n)
	for v := range n {
		h.tie[v] = rng.Uint64()
		u := int32(v)
		if kind == minFill {
			h.k1[v], h.k2[v] = e.fillIn(u), e.weight(u)
		} else {
			h.k1[v] = e.weight(u)
		}
	}
	h.init()
	c := &candidate{order: make([]int32, 0, n), largest: math.Inf(-1)}
	c.heuristic = "min-degree"
	if kind == minFill {
		c.heuristic = "min-fill"
	}
	inN := make([]uint32, n) // marks the current neighbourhood
	var nstamp uint32
	for h.len() > 0 {
		v := h.pop()
		nb, size, prod := e.eliminate(v)
		c.order = append(c.order, v)
		c.cost += prod
		c.largest = max(c.largest, size)
		if prune(c.cost, c.largest, best, maxLog2) {
			return nil
		}
		if kind == minDegree {
			for _, u := range nb {
				h.k1[u] = e.weight(u)
				h.fix(u)
			}
			continue
		}
		// A fill edge (a,b) removes one missing pair from the neighbourhood
		// of every common neighbour of a and b outside nb.
		nstamp++
		for _, u := range nb {
			inN[u] = nstamp
		}
		for _, ab := range e.fill {
			e.commonNeighbours(ab[0], ab[1], func(y int32) {
				if inN[y] != nstamp {
					h.k1[y]--
					h.fix(y)
				}
			})
		}
		for _, u := range nb {
			h.k1[u], h.k2[u] = e.fillIn(u), e.weight(u)
			h.fix(u)
		}
	}
	return c
}

// vheap is an indexed min-heap of variables keyed by (k1, k2, tie).
type vheap struct {
	k1, k2 []float64
	tie    []uint64
	items  []int32
	pos    []int32 // position of each variable in items, -1 once popped
}

func newVHeap(n int) *vheap {
	return &vheap{k1: make([]float64, n), k2: make([]float64, n), tie: make([]uint64, n),
		items: make([]int32, n), pos: make([]int32, n)}
}

func (h *vheap) less(a, b int32) bool {
	if h.k1[a] != h.k1[b] {
		return h.k1[a] < h.k1[b]
	}
	if h.k2[a] != h.k2[b] {
		return h.k2[a] < h.k2[b]
	}
	if h.tie[a] != h.tie[b] {
		return h.tie[a] < h.tie[b]
	}
	return a < b
}

func (h *vheap) len() int { return len(h.items) }

func (h *vheap) init() {
	for i := range h.items {
		h.items[i] = int32(i)
		h.pos[i] = int32(i)
	}
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *vheap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i]] = int32(i)
	h.pos[h.items[j]] = int32(j)
}

func (h *vheap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *vheap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			m = r
		}
		if !h.less(h.items[m], h.items[i]) {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func (h *vheap) pop() int32 {
	v := h.items[0]
	last := len(h.items) - 1
	h.swap(0, last)
	h.items = h.items[:last]
	h.pos[v] = -1
	if last > 0 {
		h.down(0)
	}
	return v
}

// fix restores heap order after v's key changed.
func (h *vheap) fix(v int32) {
	i := int(h.pos[v])
	if i < 0 {
		return
	}
	h.up(i)
	h.down(int(h.pos[v]))
}

// cuthillMcKee returns a breadth-first order of every connected component,
// started from a pseudo-peripheral vertex (George-Liu) and visiting
// neighbours by increasing degree. Eliminating along it sweeps the graph like
// a band matrix: on an L x L grid it moves along anti-diagonals and its
// cliques hold about L+1 variables.
func (g *graph) cuthillMcKee() []int32 {
	n := len(g.adj)
	b := &bfs{adj: g.adj, visited: make([]bool, n), dist: make([]int32, n)}
	for i := range b.dist {
		b.dist[i] = -1
	}
	order := make([]int32, 0, n)
	for s0 := range n {
		if !b.visited[s0] {
			order = b.appendOrder(order, b.peripheral(int32(s0)))
		}
	}
	return order
}

// bfs holds the breadth-first searches of cuthillMcKee.
type bfs struct {
	adj     [][]int32
	visited []bool  // vertices already ordered
	dist    []int32 // distance from the start of the latest levels; -1 if not reached
	touched []int32 // vertices reached by the latest levels, by distance
	queue   []int32
}

func (b *bfs) deg(u int32) int { return len(b.adj[u]) }

// levels runs a BFS from s over unvisited vertices and returns the
// eccentricity of s and the vertices of the last level.
func (b *bfs) levels(s int32) (int32, []int32) {
	for _, u := range b.touched {
		b.dist[u] = -1
	}
	b.touched = append(b.touched[:0], s)
	b.dist[s] = 0
	for i := 0; i < len(b.touched); i++ {
		u := b.touched[i]
		for _, x := range b.adj[u] {
			if b.dist[x] < 0 && !b.visited[x] {
				b.dist[x] = b.dist[u] + 1
				b.touched = append(b.touched, x)
			}
		}
	}
	ecc := b.dist[b.touched[len(b.touched)-1]]
	i := len(b.touched)
	for i > 0 && b.dist[b.touched[i-1]] == ecc {
		i--
	}
	return ecc, b.touched[i:]
}

// peripheral returns a pseudo-peripheral vertex of s0's unvisited component:
// from a vertex of least degree, it moves to a least-degree vertex of the
// last level while that increases the eccentricity.
func (b *bfs) peripheral(s0 int32) int32 {
	start := s0
	b.levels(start)
	for _, u := range b.touched {
		if b.deg(u) < b.deg(start) {
			start = u
		}
	}
	ecc, last := b.levels(start)
	for {
		cand := last[0]
		for _, u := range last {
			if b.deg(u) < b.deg(cand) || (b.deg(u) == b.deg(cand) && u < cand) {
				cand = u
			}
		}
		e2, l2 := b.levels(cand)
		if e2 <= ecc {
			return start
		}
		start, ecc, last = cand, e2, l2
	}
}

// appendOrder appends to order the breadth-first order of start's
// component, each vertex's new neighbours by increasing degree, then index.
func (b *bfs) appendOrder(order []int32, start int32) []int32 {
	b.queue = append(b.queue[:0], start)
	b.visited[start] = true
	for i := 0; i < len(b.queue); i++ {
		u := b.queue[i]
		order = append(order, u)
		first := len(b.queue)
		for _, x := range b.adj[u] {
			if !b.visited[x] {
				b.visited[x] = true
				b.queue = append(b.queue, x)
			}
		}
		next := b.queue[first:]
		slices.SortFunc(next, func(x, y int32) int {
			if d := b.deg(x) - b.deg(y); d != 0 {
				return d
			}
			return int(x - y)
		})
	}
	return order
}

// ErrZeroPartition is wrapped by the errors of models whose partition function
// is zero: every joint state has a zero potential (contradictory evidence).
var ErrZeroPartition = errors.New("model has zero partition function")
