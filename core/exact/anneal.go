package exact

import (
	"math"
	"math/rand/v2"
)

// annealer refines a contraction tree by simulated annealing over local
// rotations, as tensor-network contraction-order optimisers do (TreeSA,
// Kalachev et al. 2021): at a node P with children Q and Z, Q a contraction
// of A and B, Z trades places with A or with B, so that P contracts (Z, B)
// with A, or (A, Z) with B. Only Q's table and the two contractions change,
// so a move is costed in a few bit-set operations.
//
// The objective is cost(t) = Σ over contractions of 2^tc + γ·2^sc (the
// multiply-adds, and the entries written, each written and read again
// several times in a pass), plus a steep penalty 2^(sc+penaltyBits) on
// every table above the size limit, so that the search trades time for
// space only where the limit asks for it.
type annealer struct {
	t     *ctree
	gamma float64
	limit float64 // log2 of the largest table wanted
	total float64 // cost(t)
	rng   *rand.Rand
	// Per node, kept up to date by apply: the entries of its table (2^sc)
	// and its cost.
	sizes, costs []float64
	maxSize      float64 // 2^limit
}

// cache computes every contraction's size and cost.
func (a *annealer) cache() {
	t := a.t
	n := len(t.left)
	if len(a.sizes) != n {
		a.sizes, a.costs = make([]float64, n), make([]float64, n)
	}
	a.maxSize = math.Exp2(a.limit)
	for i := int32(t.nleaf); i < int32(n); i++ {
		a.sizes[i] = t.size(t.set(i))
		a.costs[i] = a.nodeCost(t.unionSize(t.set(t.left[i]), t.set(t.right[i])), a.sizes[i])
	}
}

// writeWeight is γ: a table's entries cost about as much as this many
// multiply-adds (written once, normalised, read by the next contraction and
// in the backward pass).
const writeWeight = 4

// penaltyBits is the extra log2 weight of a table above the limit.
const penaltyBits = 12

// nodeCost is the cost of a contraction of mults multiply-adds making a
// table of size entries (2^tc and 2^sc, counted without exponentials).
func (a *annealer) nodeCost(mults, size float64) float64 {
	c := mults + a.gamma*size
	if size > a.maxSize {
		c += size * (1 << penaltyBits)
	}
	return c
}

// cachedCost returns cost(t) from the per-node cache.
func (a *annealer) cachedCost() float64 {
	c := 0.0
	for _, x := range a.costs[a.t.nleaf:] {
		c += x
	}
	return c
}

// cost returns cost(t) from scratch.
func (a *annealer) cost() float64 {
	t := a.t
	a.maxSize = math.Exp2(a.limit)
	c := 0.0
	for n := int32(t.nleaf); n < int32(len(t.left)); n++ {
		c += a.nodeCost(t.unionSize(t.set(t.left[n]), t.set(t.right[n])), t.size(t.set(n)))
	}
	return c
}

// move is a rotation at p: child q of p (internal), the other child z, and
// which child of q (0 left, 1 right) trades places with z.
type move struct {
	p, q, z int32
	side    int
}

// propose picks a random rotation at internal node p; ok is false if p has
// no internal child.
func (a *annealer) propose(p int32) (move, bool) {
	t := a.t
	l, r := t.left[p], t.right[p]
	var qs [2]int32
	k := 0
	if !t.leaf(l) {
		qs[k] = l
		k++
	}
	if !t.leaf(r) {
		qs[k] = r
		k++
	}
	if k == 0 {
		return move{}, false
	}
	q := qs[a.rng.IntN(k)]
	z := l
	if q == l {
		z = r
	}
	return move{p: p, q: q, z: z, side: a.rng.IntN(2)}, true
}

// delta returns the change of cost(t) that m makes, the ratio of the two
// changed contractions' new cost to their old one, and q's new open set (in
// scratch) with its new size and both new costs.
func (a *annealer) delta(m move, scratch []uint64) (d, ratio float64, nu update) {
	t := a.t
	ch := [2]int32{t.left[m.q], t.right[m.q]}
	x, kept := ch[m.side], ch[1-m.side] // x leaves q, kept stays
	sz, sk, sx, sp := t.set(m.z), t.set(kept), t.set(x), t.set(m.p)
	for i := range scratch {
		scratch[i] = (sz[i] | sk[i]) & (sx[i] | sp[i])
	}
	old := a.costs[m.q] + a.costs[m.p]
	nu.sq = t.size(scratch)
	nu.cq = a.nodeCost(t.unionSize(sz, sk), nu.sq)
	nu.cp = a.nodeCost(t.unionSize(scratch, sx), a.sizes[m.p])
	return nu.cq + nu.cp - old, (nu.cq + nu.cp) / old, nu
}

// update is what a move changes in the caches.
type update struct{ sq, cq, cp float64 }

// apply performs m, q's new open set being s.
func (a *annealer) apply(m move, s []uint64, nu update) {
	a.sizes[m.q], a.costs[m.q] = nu.sq, nu.cq
	a.costs[m.p] = nu.cp
	t := a.t
	x := t.left[m.q]
	if m.side == 1 {
		x = t.right[m.q]
	}
	if m.side == 0 {
		t.left[m.q] = m.z
	} else {
		t.right[m.q] = m.z
	}
	if t.left[m.p] == m.z {
		t.left[m.p] = x
	} else {
		t.right[m.p] = x
	}
	t.parent[m.z], t.parent[x] = m.q, m.p
	copy(t.set(m.q), s)
}

// run anneals for sweeps passes over the contractions, the inverse
// temperature rising linearly from betaStart to betaEnd (in units of log2 of
// the cost ratio), and leaves in a.t the cheapest tree seen at the end of a
// pass.
func (a *annealer) run(sweeps int) {
	t := a.t
	a.total = a.cost()
	a.cache()
	best, bestCost := t.clone(), a.total
	nodes := make([]int32, 0, len(t.left)-t.nleaf)
	for n := int32(t.nleaf); n < int32(len(t.left)); n++ {
		nodes = append(nodes, n)
	}
	scratch := make([]uint64, t.words)
	for s := range sweeps {
		beta := betaStart + (betaEnd-betaStart)*float64(s)/float64(max(sweeps-1, 1))
		a.rng.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
		for _, p := range nodes {
			m, ok := a.propose(p)
			if !ok {
				continue
			}
			d, ratio, nu := a.delta(m, scratch)
			if ratio > 1 && !uphill(ratio, beta, a.rng.ExpFloat64()) {
				continue
			}
			a.apply(m, scratch, nu)
			a.total += d
		}
		a.total = a.cachedCost() // no drift from the running sum
		if a.total < bestCost {
			best.copyFrom(t)
			bestCost = a.total
		}
	}
	a.t = best
	a.total = bestCost
}

// uphill reports whether a move that multiplies the local cost by ratio > 1
// is taken at inverse temperature beta, with probability 2^(-beta·log2 ratio)
// = e^(-beta·ln ratio): given e drawn from Exp(1), iff beta·ln(ratio) < e.
// The bounds (r-1)/r <= ln r <= r-1 settle most moves without a logarithm.
func uphill(ratio, beta, e float64) bool {
	x := ratio - 1
	switch {
	case beta*x < e:
		return true
	case beta*x/ratio >= e:
		return false
	}
	return beta*math.Log(ratio) < e
}

// The annealing schedule: at betaStart a move that doubles the cost is
// taken with probability 2^-betaStart; at betaEnd one that adds 1% with
// probability 2^(-betaEnd·0.014).
const (
	betaStart = 1
	betaEnd   = 20
)
