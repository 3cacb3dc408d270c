package mcmc

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/renn-go/renn/core/exact"
	"github.com/renn-go/renn/core/feasible"
	"github.com/renn-go/renn/core/mrf"
)

// Block draws: where zeros tie variables together, a sweep draws the
// variables of a piece of the constraints (reference.go: the open
// variables that the zeros of factors of two or more variables join) jointly
// from their conditional given the rest of the configuration, by variable
// elimination over the piece and sampling back through its tables, instead
// of one at a time. On the feasible set single-site moves can be frozen: in
// a genetic-linkage pedigree a child's allele is the one its selector picks
// from its parent, so neither the allele nor the selector can change alone,
// nor a parent's allele that its children carry. The pieces are disjoint and
// no zero joins two of them, so a piece's conditional is positive on every
// feasible configuration of the piece whatever the rest is (soft factors
// only weigh it), and a piece drawn as a block reaches any of them in one
// draw, at every temperature (tempered as the single-site conditionals
// are: zeros held, finite entries times β). Where every piece with a
// deterministic constraint is a block, no relaxation rung is needed
// (ladder.go).
//
// Which pieces (option blocks): under "auto" a piece one of whose
// constraints fixes a variable given the others (single-site moves cannot
// change that variable at all), or whose draw costs at most blockRatio
// single-site sweeps of it; under "on" every piece; under "off" none;
// always within maxBlockTable, maxBlockCost and maxBlocksCost. The other
// variables keep single-site updates. Measured on the linkage family
// (core/mrf; mrf.DeriveSeed(1, k)), a piece is a locus of the pedigree, or
// part of one where typed markers cut it: sizes 12 to 24 (k = 0..5) have
// 10 to 28 blocks of 2 to 84 variables, whose draws cost 2^12 to 2^15 in
// all (table entries times inputs), planned at 3 to 13 times a single-site
// sweep of the model (timed at 7 to 9 times on size 16, k = 0:
// BenchmarkLinkageBlocks against BenchmarkLinkageSweep). On the other
// families the zeros join most variables into one piece, 46 to 660 times a
// single-site sweep to draw (pedigree, CSP, noisy-OR of 60), mostly left to
// single-site updates under "auto".

// When blocks are drawn jointly (PTOptions.Blocks, Options.Blocks).
const (
	BlocksAuto = "auto"
	BlocksOn   = "on"
	BlocksOff  = "off"
)

// blockRatio is the most a block's elimination may cost under blocks
// "auto", relative to a single-site sweep of its variables (the sum over
// them of their cardinality times one plus their factors of two or more
// variables): above it a sweep would cost much more than it does now
// (pedigrees, CSPs and noisy-OR networks whose zeros join most variables
// into one piece cost 46 to 660 times a sweep of it), and the samplers'
// time budgets buy proportionally fewer sweeps.
const blockRatio = 16

// maxBlockTable bounds the largest clique table of a block, maxBlockCost
// its cost (block.cost) per draw, and maxBlocksCost the cost of all the
// blocks of a model (their planned offsets take 4 bytes per unit of cost,
// and a sweep draws every block at every rung).
const (
	maxBlockTable = 1 << 16
	maxBlockCost  = 1 << 20
	maxBlocksCost = 1 << 22
)

// block is a set of variables drawn jointly by variable elimination: local
// variable k is vars[k], eliminated at step k.
type block struct {
	vars  []int
	steps []blockStep
	facs  []blockFactor
	// tableLen and msgLen are the lengths of the work's clique tables and
	// messages, every step's one after the other.
	tableLen, msgLen int
	cost             float64 // clique table entries times inputs, summed
}

// blockFactor is a factor of two or more variables with at least one in the
// block: the positions of its block variables in layout.flat move by
// stride per state.
type blockFactor struct {
	a      int
	local  []int // local ids of its block variables
	stride []int
}

// blockStep eliminates local variable k (its own index): its clique is k
// then the later variables it meets, in increasing order; its table is the
// sum of its inputs' log values over the clique's configurations (row
// major, the last fastest), and its message, over the clique without k
// (the separator), is the log-sum-exp over k's states, to be read by the
// step of the separator's first variable.
type blockStep struct {
	clique        []int
	cards         []int
	size, sepSize int
	tOff, mOff    int
	facs          []int // the blockFactors whose first local variable is k
	msgs          []int // the steps whose message is read here
	// fAt[q][t] and mAt[q][t] are where input q of facs (msgs) is read at
	// clique configuration t: in layout.flat, relative to the factor's
	// entry with every block variable at state 0, and in its message.
	fAt, mAt [][]int32
	// sepStride[p] is clique variable p's stride in the step's own message
	// (0 for p = 0, the eliminated variable).
	sepStride []int
}

// blockWork is one chain's scratch for block draws.
type blockWork struct {
	table, msg []float64
	x          []int
	fOff       []int
	lp         []float64
}

func newBlockWork(bs []*block, maxCard int) *blockWork {
	var table, msg, vars, facs int
	for _, b := range bs {
		table, msg, vars = max(table, b.tableLen), max(msg, b.msgLen), max(vars, len(b.vars))
		for _, st := range b.steps {
			facs = max(facs, len(st.facs))
		}
	}
	return &blockWork{table: make([]float64, table), msg: make([]float64, msg), x: make([]int, vars),
		fOff: make([]int, facs), lp: make([]float64, maxCard)}
}

// setBlocks makes blocks of the pieces of l's constraints under domains
// dom (nil: no zero potential, no blocks) as mode says, and marks their
// variables skipped by single-site sweeps. It returns the number of
// variables in blocks.
func (l *layout) setBlocks(dom feasible.Domains, mode string) int {
	if dom == nil || mode == BlocksOff || l.nHard == 0 {
		return 0
	}
	pcs, _ := l.pieces(dom)
	l.blockOf = make([]int, len(l.cards))
	for i := range l.blockOf {
		l.blockOf[i] = -1
	}
	n, cost := 0, 0.0
	for _, p := range pcs {
		if len(p.vars) < 2 {
			continue
		}
		b := l.newBlock(p.vars, maxBlockTable, min(maxBlockCost, maxBlocksCost-cost))
		if b == nil || mode == BlocksAuto && !l.worthBlock(b, p) {
			continue
		}
		b.locate()
		cost += b.cost
		if l.skip == nil {
			l.skip = make([]bool, len(l.cards))
		}
		for _, v := range p.vars {
			l.skip[v] = true
			l.blockOf[v] = len(l.blocks)
		}
		l.blocks = append(l.blocks, b)
		n += len(p.vars)
	}
	return n
}

// worthBlock reports whether drawing piece p as block b pays under blocks
// "auto": where one of its constraints fixes a variable given the others,
// single-site moves cannot change that variable at all, so any cost pays;
// elsewhere b must cost at most blockRatio single-site sweeps of p.
func (l *layout) worthBlock(b *block, p piece) bool {
	for _, c := range p.cons {
		if c.fixesOne() {
			return true
		}
	}
	return b.cost <= blockRatio*l.sweepCost(p.vars)
}

// sweepCost is the work of a single-site sweep of vars: per variable, its
// states times one plus its factors of two or more variables.
func (l *layout) sweepCost(vars []int) float64 {
	c := 0.0
	for _, v := range vars {
		c += float64(l.cards[v] * (1 + l.incStart[v+1] - l.incStart[v]))
	}
	return c
}

// newBlock plans the joint draw of vars: an elimination order over the
// factors of two or more variables touching them (core/exact's planner on
// their scopes within vars), then each step's clique and inputs. It
// returns nil when the largest table would exceed maxTable or the cost
// maxCost. The block needs locate before its first draw.
func (l *layout) newBlock(vars []int, maxTable int64, maxCost float64) *block {
	local := make(map[int]int, len(vars))
	for k, v := range vars {
		local[v] = k
	}
	var facs []blockFactor
	seen := map[int]bool{}
	for _, v := range vars {
		for k := l.incStart[v]; k < l.incStart[v+1]; k++ {
			a := int(l.incFactor[k])
			if seen[a] {
				continue
			}
			seen[a] = true
			f := blockFactor{a: a}
			for p, u := range l.g.Scopes[a] {
				if j, ok := local[u]; ok {
					f.local = append(f.local, j)
					f.stride = append(f.stride, l.g.Axes[a][p].Stride)
				}
			}
			facs = append(facs, f)
		}
	}
	order, ok := blockOrder(l.cards, vars, facs, maxTable)
	if !ok {
		return nil
	}
	// Relabel so that local id k is the k-th eliminated.
	pos := make([]int, len(vars))
	b := &block{vars: make([]int, len(vars))}
	for k, j := range order {
		pos[j] = k
		b.vars[k] = vars[j]
	}
	for q := range facs {
		for p, j := range facs[q].local {
			facs[q].local[p] = pos[j]
		}
	}
	b.facs = facs
	if b.plan(l.cards); b.cost > maxCost {
		return nil
	}
	return b
}

// blockOrder returns an elimination order of the local variables 0..n-1
// (vars) for the factors facs, and false when it needs a table above
// maxTable.
func blockOrder(cards, vars []int, facs []blockFactor, maxTable int64) ([]int, bool) {
	m := &mrf.Model{Cards: make([]int, len(vars))}
	for k, v := range vars {
		m.Cards[k] = cards[v]
	}
	for _, f := range facs {
		if len(f.local) < 2 {
			continue
		}
		size := 1
		for _, j := range f.local {
			size *= m.Cards[j]
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: f.local, LogTable: make([]float64, size)})
	}
	opt := exact.DefaultOptions()
	opt.MaxTable, opt.Tries = maxTable, 2
	plan, err := exact.MakeOrder(m, opt)
	if err != nil {
		return nil, false
	}
	return plan.Vars, true
}

// plan sets the steps of b from its factors, whose local ids are in
// elimination order.
func (b *block) plan(cards []int) {
	n := len(b.vars)
	b.steps = make([]blockStep, n)
	pending := make([][]int, n) // scopes waiting at their first variable: factors as q, messages as -1-k
	for q, f := range b.facs {
		first := slices.Min(f.local)
		pending[first] = append(pending[first], q)
	}
	for k := range n {
		st := &b.steps[k]
		set := map[int]bool{k: true}
		for _, in := range pending[k] {
			var scope []int
			if in >= 0 {
				st.facs = append(st.facs, in)
				scope = b.facs[in].local
			} else {
				st.msgs = append(st.msgs, -1-in)
				scope = b.steps[-1-in].clique[1:]
			}
			for _, j := range scope {
				set[j] = true
			}
		}
		delete(set, k)
		sep := make([]int, 0, len(set))
		for j := range set {
			sep = append(sep, j)
		}
		slices.Sort(sep)
		st.clique = append([]int{k}, sep...)
		st.cards = make([]int, len(st.clique))
		for p, j := range st.clique {
			st.cards[p] = cards[b.vars[j]]
		}
		st.sepSize = 1
		st.sepStride = make([]int, len(st.clique))
		for p := len(st.clique) - 1; p >= 1; p-- {
			st.sepStride[p] = st.sepSize
			st.sepSize *= st.cards[p]
		}
		st.size = st.sepSize * st.cards[0]
		st.tOff, st.mOff = b.tableLen, b.msgLen
		b.tableLen += st.size
		b.msgLen += st.sepSize
		b.cost += float64(st.size * (1 + len(st.facs) + len(st.msgs)))
		if len(sep) > 0 {
			pending[sep[0]] = append(pending[sep[0]], -1-k)
		}
	}
}

// locate sets where every step reads its inputs at every configuration of
// its clique.
func (b *block) locate() {
	for k := range b.steps {
		st := &b.steps[k]
		st.fAt = make([][]int32, len(st.facs))
		for q, fi := range st.facs {
			f := &b.facs[fi]
			st.fAt[q] = st.offsets(f.local, f.stride, 0)
		}
		st.mAt = make([][]int32, len(st.msgs))
		for q, from := range st.msgs {
			src := &b.steps[from]
			st.mAt[q] = st.offsets(src.clique[1:], src.sepStride[1:], src.mOff)
		}
	}
}

// offsets returns, at every configuration of st's clique (row major, the
// last variable fastest), base + Σ state·stride over the clique variables
// of an input whose local variables are local with strides.
func (st *blockStep) offsets(local, strides []int, base int) []int32 {
	stride := make([]int, len(st.clique))
	for p, j := range st.clique {
		if r := slices.Index(local, j); r >= 0 {
			stride[p] = strides[r]
		}
	}
	out := make([]int32, st.size)
	digit := make([]int, len(st.clique))
	o := base
	for t := range out {
		out[t] = int32(o)
		for p := len(digit) - 1; p >= 0; p-- {
			if digit[p]++; digit[p] < st.cards[p] {
				o += stride[p]
				break
			}
			o -= (st.cards[p] - 1) * stride[p]
			digit[p] = 0
		}
	}
	return out
}

// sweepBlocks draws every block of l in r from its conditional at inverse
// temperature beta (tempered as the single-site conditionals are: zeros
// held, finite entries tempered), and keeps r's entry indices up to date.
func (l *layout) sweepBlocks(r *replica, beta float64, rng *rand.Rand, w *blockWork) {
	for _, b := range l.blocks {
		l.forward(b, r, beta, w)
		l.backward(b, r, rng, w)
	}
}

// forward fills every step's clique table and message for r's
// configuration outside b.
func (l *layout) forward(b *block, r *replica, beta float64, w *blockWork) {
	for k := range b.steps {
		st := &b.steps[k]
		fOff := w.fOff[:len(st.facs)]
		for q, fi := range st.facs {
			f := &b.facs[fi]
			o := r.idx[f.a]
			for p, j := range f.local {
				o -= r.x[b.vars[j]] * f.stride[p]
			}
			fOff[q] = o
		}
		ut := w.lp[:st.cards[0]]
		for s := range ut {
			ut[s] = l.unaryTempered(b.vars[k], s, beta)
		}
		table := w.table[st.tOff : st.tOff+st.size]
		l.fill(table, st, fOff, ut, beta, w.msg)
		eliminate(table, w.msg[st.mOff:st.mOff+st.sepSize], st.cards[0])
	}
}

// fill sets table to the step's inputs summed at every configuration of
// its clique: the tempered sum of the factors' entries (factor q's from
// fOff[q]), the eliminated variable's tempered unary entries ut, and the
// messages in msg.
func (l *layout) fill(table []float64, st *blockStep, fOff []int, ut []float64, beta float64, msg []float64) {
	clear(table)
	for q, at := range st.fAt {
		f := l.flat[fOff[q]:]
		for t, o := range at[:len(table)] {
			table[t] += f[o]
		}
	}
	n := st.sepSize
	for s, u := range ut {
		row := table[s*n : (s+1)*n]
		if u == negInf {
			for t := range row {
				row[t] = negInf
			}
			continue
		}
		for t, p := range row {
			if p > negInf {
				row[t] = u + beta*p
			}
		}
	}
	for _, at := range st.mAt {
		for t, o := range at[:len(table)] {
			table[t] += msg[o]
		}
	}
}

var negInf = math.Inf(-1)

// unaryTempered is variable u's unary log weight at state s at inverse
// temperature beta: -Inf at a unary zero, else β times the finite entries
// under temper "all" and the entries themselves under "pairs".
func (l *layout) unaryTempered(u, s int, beta float64) float64 {
	un := l.unary[l.uOff[u]+s]
	switch {
	case math.IsInf(un, -1):
		return un
	case l.soft != nil:
		return beta * un
	}
	return un
}

// eliminate sets msg[j] = ln Σ_s exp(table[s·len(msg) + j]), as the
// largest entry m plus ln(1 + Σ of the others' exp(v - m)); where one
// state alone is possible (deterministic factors) that is its entry.
func eliminate(table, msg []float64, card int) {
	n := len(msg)
	for j := range msg {
		mx, at := negInf, -1
		for s := range card {
			if v := table[s*n+j]; v > mx {
				mx, at = v, s
			}
		}
		rest := 0.0
		for s := range card {
			if v := table[s*n+j]; s != at && v > negInf {
				rest += math.Exp(v - mx)
			}
		}
		msg[j] = mx
		if rest > 0 {
			msg[j] += math.Log1p(rest)
		}
	}
}

// backward draws b's variables in reverse elimination order, each from its
// clique table given the later ones, and moves r to the draw.
func (l *layout) backward(b *block, r *replica, rng *rand.Rand, w *blockWork) {
	bx := w.x[:len(b.vars)]
	for k := len(b.steps) - 1; k >= 0; k-- {
		st := &b.steps[k]
		j := 0
		for p := 1; p < len(st.clique); p++ {
			j += bx[st.clique[p]] * st.sepStride[p]
		}
		lp := w.lp[:st.cards[0]]
		for s := range lp {
			lp[s] = w.table[st.tOff+s*st.sepSize+j]
		}
		bx[k] = drawLog(lp, r.x[b.vars[k]], rng)
	}
	for k, v := range b.vars {
		if s, xi := bx[k], r.x[v]; s != xi {
			for q := l.incStart[v]; q < l.incStart[v+1]; q++ {
				r.idx[l.incFactor[q]] += (s - xi) * int(l.incStride[q])
			}
			r.x[v] = s
		}
	}
}
