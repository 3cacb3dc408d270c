package mcmc

import "math/rand/v2"

// Houdayer's cluster move (Houdayer 2001), pt's option cluster "houdayer":
// chains are paired (0 with 1, 2 with 3, ...), and after every sweep the two
// replicas of a pair at the same inverse temperature β_k > 0, a and b,
// exchange one cluster. The sites where a and b disagree split into
// connected components over the factors of two or more variables; one site
// is drawn uniformly among the disagreeing ones, and a and b exchange their
// states on its component C. That leaves the product p_β(a)·p_β(b)
// unchanged, so the move is always accepted: every variable's unary terms
// are only exchanged between the replicas, and so is every factor's entry,
// since a factor touching C has all its other variables outside the
// disagreement set (else they would be in C), where a and b agree. It is
// reversible: the exchange keeps the disagreement set, so C is the same
// component afterwards and is drawn with the same probability |C|/|D|.
// It works on any factor graph, zeros included (the sum of the two
// replicas' log weights is kept, so neither leaves the support).
//
// Why: on a spin glass the cold replicas freeze into valleys a single-site
// sweep cannot leave, and the tempering ladder brings new valleys down only
// rarely; exchanging whole domains of disagreement moves a replica between
// valleys at no energy cost. The pair's two chains are no longer
// independent, so the spread of their means says less (see the package
// comment on the standard errors).

// pairUp returns one chain per pair of chains exchanging clusters, whose
// batches hold both chains' samples (batches of twice the size): the
// statistics then treat a pair as the unit it is. The exchange makes the
// pair's two chains dependent (it leaves their pooled counts unchanged
// while swapping which chain holds what), so each chain alone looks better
// mixed than the pair is, and their spread understates the error; the
// pair's pooled samples move only by the moves that do mix.
func pairUp(chains []*chain) []*chain {
	out := make([]*chain, 0, len(chains)/2)
	for p := 0; p+1 < len(chains); p += 2 {
		a, b := chains[p], chains[p+1]
		ab, bb := a.b, b.b
		m := &batches{width: ab.width, rungs: ab.rungs, size: 2 * ab.size, n: ab.n, fill: 2 * ab.fill,
			counts: make([]int32, len(ab.counts)), logw: make([]float64, len(ab.logw)),
			energy: make([]float64, len(ab.energy)), trips: make([]float64, len(ab.trips))}
		for k := range m.counts {
			m.counts[k] = ab.counts[k] + bb.counts[k]
		}
		for k := range m.logw {
			m.logw[k] = logAddExp(ab.logw[k], bb.logw[k])
		}
		for k := range m.energy {
			m.energy[k] = ab.energy[k] + bb.energy[k]
		}
		for k := range m.trips {
			m.trips[k] = ab.trips[k] + bb.trips[k]
		}
		c := &chain{b: m, steps: a.steps, attempts: make([]int, len(a.attempts)), accepts: make([]int, len(a.accepts))}
		for k := range c.attempts {
			c.attempts[k] = a.attempts[k] + b.attempts[k]
			c.accepts[k] = a.accepts[k] + b.accepts[k]
		}
		out = append(out, c)
	}
	return out
}

// clusterWork is the scratch of the cluster moves of one pair of chains.
type clusterWork struct {
	diff, stack, cluster []int32
	mark                 []uint32 // site in the current cluster iff mark == stamp
	stamp                uint32
	moves, flipped       int // moves tried, sites exchanged (diagnostics)
}

func newClusterWork(n int) *clusterWork { return &clusterWork{mark: make([]uint32, n)} }

// houdayer exchanges one cluster between a and b (same inverse temperature)
// drawn with rng, and returns its size (0 when a and b agree everywhere).
func (l *layout) houdayer(a, b *replica, rng *rand.Rand, w *clusterWork) int {
	w.diff = w.diff[:0]
	for i, s := range a.x {
		if b.x[i] != s {
			w.diff = append(w.diff, int32(i))
		}
	}
	w.moves++
	if len(w.diff) == 0 {
		return 0
	}
	if w.stamp++; w.stamp == 0 { // wrapped: clear the old marks
		clear(w.mark)
		w.stamp = 1
	}
	start := w.diff[rng.IntN(len(w.diff))]
	w.mark[start] = w.stamp
	w.stack = append(w.stack[:0], start)
	w.cluster = w.cluster[:0]
	for len(w.stack) > 0 {
		i := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.cluster = append(w.cluster, i)
		l.neighbours(int(i), func(j int) {
			if w.mark[j] != w.stamp && a.x[j] != b.x[j] {
				w.mark[j] = w.stamp
				w.stack = append(w.stack, int32(j))
			}
		})
	}
	for _, i := range w.cluster {
		sa, sb := a.x[i], b.x[i]
		l.set(a, int(i), sb)
		l.set(b, int(i), sa)
	}
	w.flipped += len(w.cluster)
	return len(w.cluster)
}

// neighbours calls f with every variable sharing a factor of two or more
// variables with i (possibly more than once).
func (l *layout) neighbours(i int, f func(j int)) {
	if is := l.is; is != nil {
		for k := l.incStart[i]; k < l.incStart[i+1]; k++ {
			f(int(is.nb[k]))
		}
		return
	}
	for k := l.incStart[i]; k < l.incStart[i+1]; k++ {
		for _, j := range l.g.Scopes[l.incFactor[k]] {
			if j != i {
				f(j)
			}
		}
	}
}

// set puts variable i of r in state s, keeping r's fields and log
// potential (binary pairwise path) or factor entries up to date; the
// general path's r.e is recomputed by step before the swaps.
func (l *layout) set(r *replica, i, s int) {
	xi := r.x[i]
	if s == xi {
		return
	}
	if is := l.is; is != nil {
		sign := 1.0 // x_i 0 -> 1: the log potential moves by -h_i
		if s == 0 {
			sign = -1
		}
		r.e -= sign * r.h[i]
		if is.duS != nil {
			r.e -= sign * is.duS[i]
		}
		for k := l.incStart[i]; k < l.incStart[i+1]; k++ {
			r.h[is.nb[k]] += sign * is.dRev[k]
		}
	} else {
		for k := l.incStart[i]; k < l.incStart[i+1]; k++ {
			r.idx[l.incFactor[k]] += (s - xi) * int(l.incStride[k])
		}
	}
	r.x[i] = s
}
