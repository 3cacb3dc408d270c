package exact

import (
	"math"
	"math/bits"
	"slices"
)

// ctree is a binary contraction tree over the tensors of a network. Nodes
// 0..nleaf-1 are the tensors (leaves), the others contractions of their two
// children. A node's open variables are those of its subtree's tensors that
// some tensor outside the subtree also holds: the dimensions of the table it
// produces. The variables of a contraction's children that are not open at
// the contraction are summed there. Variables are numbered compactly
// (0..nv-1) and stored as bit sets.
type ctree struct {
	nleaf               int
	left, right, parent []int32 // -1 where absent
	open                []uint64
	words               int
	w                   []float64 // log2 of every variable's cardinality
	classes             []wclass  // the variables by weight, for fast weights
	root                int32
}

// wclass is the set of variables of one positive weight, with pow[n] =
// 2^(w·n), the entries of a table over n of them.
type wclass struct {
	w    float64
	mask []uint64
	pow  []float64
}

// setWeights sets the variables' weights and regroups them by weight.
func (t *ctree) setWeights(w []float64) {
	t.w = w
	t.classes = t.classes[:0]
	for v, x := range w {
		if x == 0 {
			continue
		}
		i := slices.IndexFunc(t.classes, func(c wclass) bool { return c.w == x })
		if i < 0 {
			i = len(t.classes)
			t.classes = append(t.classes, wclass{w: x, mask: make([]uint64, t.words)})
		}
		t.classes[i].mask[v>>6] |= 1 << uint(v&63)
	}
	for i := range t.classes {
		c := &t.classes[i]
		n := 0
		for _, word := range c.mask {
			n += bits.OnesCount64(word)
		}
		c.pow = make([]float64, n+1)
		for k := range c.pow {
			c.pow[k] = math.Exp2(c.w * float64(k))
		}
	}
}

func newCtree(nv, nleaf int, w []float64) *ctree {
	words := max(1, (nv+63)/64)
	n := max(2*nleaf-1, 1)
	t := &ctree{nleaf: nleaf, words: words, root: -1,
		left: make([]int32, n), right: make([]int32, n), parent: make([]int32, n), open: make([]uint64, n*words)}
	t.setWeights(w)
	for i := range n {
		t.left[i], t.right[i], t.parent[i] = -1, -1, -1
	}
	if nleaf == 1 {
		t.root = 0
	}
	return t
}

func (t *ctree) set(n int32) []uint64 { return t.open[int(n)*t.words : int(n+1)*t.words] }

func (t *ctree) leaf(n int32) bool { return int(n) < t.nleaf }

// weight returns log2 of the number of entries over the variables of s.
func (t *ctree) weight(s []uint64) float64 {
	x := 0.0
	for _, c := range t.classes {
		n := 0
		for i, word := range s {
			n += bits.OnesCount64(word & c.mask[i])
		}
		x += c.w * float64(n)
	}
	return x
}

// unionWeight returns the weight of a ∪ b.
func (t *ctree) unionWeight(a, b []uint64) float64 {
	x := 0.0
	for _, c := range t.classes {
		n := 0
		for i, word := range a {
			n += bits.OnesCount64((word | b[i]) & c.mask[i])
		}
		x += c.w * float64(n)
	}
	return x
}

// size returns the number of entries over the variables of s: 2^weight(s),
// without an exponential.
func (t *ctree) size(s []uint64) float64 {
	x := 1.0
	for _, c := range t.classes {
		n := 0
		for i, word := range s {
			n += bits.OnesCount64(word & c.mask[i])
		}
		x *= c.pow[n]
	}
	return x
}

// unionSize returns the size of a ∪ b.
func (t *ctree) unionSize(a, b []uint64) float64 {
	x := 1.0
	for _, c := range t.classes {
		n := 0
		for i, word := range a {
			n += bits.OnesCount64((word | b[i]) & c.mask[i])
		}
		x *= c.pow[n]
	}
	return x
}

// tc is log2 of the multiply-adds of contraction n (the entries of the
// union of its children's tables); sc log2 of the entries of n's table.
func (t *ctree) tc(n int32) float64 { return t.unionWeight(t.set(t.left[n]), t.set(t.right[n])) }
func (t *ctree) sc(n int32) float64 { return t.weight(t.set(n)) }

// internal returns the contraction nodes in post-order (children first),
// the larger child's subtree first.
func (t *ctree) postOrder() []int32 {
	if t.root < 0 {
		return nil
	}
	out := make([]int32, 0, len(t.left)-t.nleaf)
	stack := []int32{t.root}
	var visit []int32
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t.leaf(n) {
			continue
		}
		visit = append(visit, n)
		stack = append(stack, t.left[n], t.right[n])
	}
	// visit is a pre-order with the right child first; reversed, it is a
	// post-order with the left child's subtree first.
	for i := len(visit) - 1; i >= 0; i-- {
		out = append(out, visit[i])
	}
	return out
}

// costs returns the total multiply-adds of one forward pass (Σ 2^tc), the
// total entries written (Σ 2^sc over contractions) and log2 of the largest
// table (leaves included).
func (t *ctree) costs() (flops, written, largest float64) {
	largest = math.Inf(-1)
	for n := range int32(t.nleaf) {
		largest = max(largest, t.sc(n))
	}
	for _, n := range t.postOrder() {
		flops += math.Exp2(t.tc(n))
		sc := t.sc(n)
		written += math.Exp2(sc)
		largest = max(largest, sc)
	}
	return flops, written, largest
}

// treeBuilder joins nodes into a ctree, tracking for every variable how
// many active nodes (roots of the partial trees) hold it.
type treeBuilder struct {
	t      *ctree
	next   int32
	active []int32 // per variable: number of active nodes holding it
}

func newTreeBuilder(t *ctree, leafVars [][]int) *treeBuilder {
	b := &treeBuilder{t: t, next: int32(t.nleaf), active: make([]int32, len(t.w))}
	for i, vs := range leafVars {
		s := t.set(int32(i))
		for _, v := range vs {
			s[v>>6] |= 1 << uint(v&63)
			b.active[v]++
		}
	}
	return b
}

// join makes a new node of a and b; its open variables are those still held
// by another active node.
func (b *treeBuilder) join(x, y int32) int32 {
	t := b.t
	n := b.next
	b.next++
	t.left[n], t.right[n] = x, y
	t.parent[x], t.parent[y] = n, n
	sx, sy, s := t.set(x), t.set(y), t.set(n)
	for i := range s {
		both := sx[i] & sy[i]
		for w := both; w != 0; w &= w - 1 {
			b.active[i*64+bits.TrailingZeros64(w)]--
		}
		u := sx[i] | sy[i]
		for w := u; w != 0; w &= w - 1 {
			v := i*64 + bits.TrailingZeros64(w)
			if b.active[v] > 1 {
				s[i] |= 1 << uint(v&63)
			}
		}
	}
	t.root = n
	return n
}

// treeFromOrder builds the contraction tree of an elimination order over
// the variables: eliminating v joins the active nodes holding it, the two
// smallest first, until one holds it (which sums it). Nodes left at the end
// (components, tensors without open variables) are joined smallest first.
func treeFromOrder(nv int, w []float64, leafVars [][]int, order []int32) *ctree {
	t := newCtree(nv, len(leafVars), w)
	b := newTreeBuilder(t, leafVars)
	holders := make([][]int32, nv) // nodes that held v when made (some since joined)
	for i, vs := range leafVars {
		for _, v := range vs {
			holders[v] = append(holders[v], int32(i))
		}
	}
	n := len(t.left)
	alive := make([]bool, n)
	sc := make([]float64, n)
	stamp := make([]int32, n) // marks the nodes already in cur
	for i := range leafVars {
		alive[i] = true
		sc[i] = t.sc(int32(i))
	}
	bySize := func(a, c int32) int { return cmpFloat(sc[a], sc[c]) }
	var cur []int32
	for round, v := range order {
		if int(v) >= nv {
			continue
		}
		mark := int32(round + 1)
		cur = cur[:0]
		for _, x := range holders[v] {
			if alive[x] && stamp[x] != mark {
				stamp[x] = mark
				cur = append(cur, x)
			}
		}
		slices.SortFunc(cur, bySize)
		for len(cur) > 1 {
			x, y := cur[0], cur[1]
			j := b.join(x, y)
			alive[x], alive[y], alive[j] = false, false, true
			sc[j] = t.sc(j)
			for i, word := range t.set(j) {
				for ; word != 0; word &= word - 1 {
					u := i*64 + bits.TrailingZeros64(word)
					holders[u] = append(holders[u], j)
				}
			}
			cur = cur[2:]
			at, _ := slices.BinarySearchFunc(cur, j, bySize)
			cur = slices.Insert(cur, at, j)
		}
	}
	var rest []int32
	for x := int32(0); x < b.next; x++ {
		if alive[x] {
			rest = append(rest, x)
		}
	}
	for len(rest) > 1 {
		slices.SortFunc(rest, bySize)
		j := b.join(rest[0], rest[1])
		sc[j] = t.sc(j)
		rest = append(rest[2:], j)
	}
	return t
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// copyFrom makes t's structure that of u, a tree of the same shape.
func (t *ctree) copyFrom(u *ctree) {
	copy(t.left, u.left)
	copy(t.right, u.right)
	copy(t.parent, u.parent)
	copy(t.open, u.open)
	t.root = u.root
}

func (t *ctree) clone() *ctree {
	c := *t
	c.left = slices.Clone(t.left)
	c.right = slices.Clone(t.right)
	c.parent = slices.Clone(t.parent)
	c.open = slices.Clone(t.open)
	c.w = slices.Clone(t.w)
	c.classes = nil
	c.setWeights(c.w)
	return &c
}

func trailingZeros(w uint64) int { return bits.TrailingZeros64(w) }
