package exact

import (
	"math"
	"math/bits"
)

// schedule is a tree of steps in an order where every step comes after the
// steps it consumes: the elimination tree (tree) or a contraction plan.
type schedule interface {
	parentOf(j int) int     // the step that consumes step j's table; -1 at a root
	entries(j int) int64    // entries of step j's table
	childrenOf(j int) []int // the steps whose tables step j consumes
}

// stepper is what sweep drives: the engine, or the sizer that predicts the
// engine's memory without allocating.
type stepper interface {
	forward(k int) error  // compute and hold step k's message
	releaseMsg(k int)     // drop step k's message
	backward(k int) error // backward visit of step k
	avail() int64         // budget left for held messages
}

// sweep visits steps hi-1 down to lo. On entry the messages of steps below
// lo whose parent is in [lo, hi) are held.
func sweep(e stepper, t schedule, lo, hi int) error {
	total, count := neededBytes(t, lo, hi)
	avail := e.avail()
	if total <= avail || count <= 1 {
		return sweepHolding(e, t, lo, hi)
	}
	bounds := segmentBounds(t, lo, hi, total, segmentCount(count, total, avail))
	if err := forwardCheckpoints(e, t, lo, hi, bounds); err != nil {
		return err
	}
	for i := len(bounds) - 2; i >= 0; i-- {
		if err := sweep(e, t, bounds[i], bounds[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// needed reports whether step j's message is consumed by a step below hi.
func needed(t schedule, j, hi int) bool {
	p := t.parentOf(j)
	return p >= 0 && p < hi
}

// neededBytes returns the bytes and the number of the messages of steps in
// [lo, hi) that are consumed below hi.
func neededBytes(t schedule, lo, hi int) (total int64, count int) {
	for j := lo; j < hi; j++ {
		if needed(t, j, hi) {
			total += 8 * t.entries(j)
			count++
		}
	}
	return total, count
}

// sweepHolding visits steps hi-1 down to lo holding every message at once:
// forward through all of them, then backward.
func sweepHolding(e stepper, t schedule, lo, hi int) error {
	for j := lo; j < hi; j++ {
		if needed(t, j, hi) {
			if err := e.forward(j); err != nil {
				return err
			}
		}
	}
	for k := hi - 1; k >= lo; k-- {
		if err := e.backward(k); err != nil {
			return err
		}
	}
	return nil
}

// segmentCount is the number of segments to cut [lo, hi) into: of about
// three quarters of the available memory each, so a segment fits next to
// the checkpoints; without memory to spare, about sqrt(count) segments,
// which recurse.
func segmentCount(count int, total, avail int64) int {
	segs := int(math.Ceil(math.Sqrt(float64(count))))
	if q := avail * 3 / 4; q > 0 {
		segs = min(segs, int((total+q-1)/q))
	}
	return max(segs, 2)
}

// segmentBounds cuts [lo, hi) into at most segs segments of about equal
// needed bytes and returns their bounds, lo first and hi last.
func segmentBounds(t schedule, lo, hi int, total int64, segs int) []int {
	bounds := []int{lo}
	var acc int64
	lastNeeded := lo
	for j := lo; j < hi; j++ {
		if !needed(t, j, hi) {
			continue
		}
		lastNeeded = j
		acc += 8 * t.entries(j)
		if len(bounds) < segs && acc*int64(segs) >= total*int64(len(bounds)) && j+1 < hi {
			bounds = append(bounds, j+1)
		}
	}
	if len(bounds) == 1 {
		// All the weight is on the last needed step: cut just before it.
		bounds = append(bounds, lastNeeded)
	}
	return append(bounds, hi)
}

// forwardCheckpoints goes forward through all but the last segment of
// bounds, keeping only the messages that cross into a later segment.
func forwardCheckpoints(e stepper, t schedule, lo, hi int, bounds []int) error {
	seg := make([]int, hi-lo)
	for i := 0; i+1 < len(bounds); i++ {
		for j := bounds[i]; j < bounds[i+1]; j++ {
			seg[j-lo] = i
		}
	}
	for j := lo; j < bounds[len(bounds)-2]; j++ {
		if !needed(t, j, hi) {
			continue
		}
		if err := e.forward(j); err != nil {
			return err
		}
		for _, c := range t.childrenOf(j) {
			if c >= lo && seg[c-lo] == seg[j-lo] {
				e.releaseMsg(c)
			}
		}
	}
	return nil
}

// pool recycles table buffers by capacity class, so the big per-step tables
// are not reallocated and the garbage collector has little to do (garbage of
// this size would let the heap grow well past the memory budget).
type pool struct {
	free  map[int][][]float64 // by capacity, most recently released last
	bytes int64               // bytes held in free
	limit int64               // above this, the smallest buffers are let go
}

// capClass rounds n up to one of eight capacities per power of two (at most
// 12.5% waste), so tables of similar size share buffers.
func capClass(n int) int {
	if n <= 16 {
		return n
	}
	step := 1 << (bits.Len(uint(n-1)) - 3)
	return (n + step - 1) / step * step
}

// get returns a buffer of length n, reusing one of capacity up to 2n.
func (p *pool) get(n int) []float64 {
	for c := capClass(n); c <= 2*n; c = capClass(c + 1) {
		if l := p.free[c]; len(l) > 0 {
			b := l[len(l)-1]
			p.free[c] = l[:len(l)-1]
			p.bytes -= 8 * int64(c)
			return b[:n]
		}
	}
	return make([]float64, n, capClass(n))
}

// put keeps b for reuse, letting the smallest buffers go if the pool would
// exceed its limit.
func (p *pool) put(b []float64) {
	c := cap(b)
	need := 8 * int64(c)
	for p.bytes+need > p.limit {
		small := 0
		for k, l := range p.free {
			if len(l) > 0 && (small == 0 || k < small) {
				small = k
			}
		}
		if small == 0 || small >= c {
			return // b is the smallest: let it go instead
		}
		l := p.free[small]
		l[0] = nil
		p.free[small] = l[1:]
		p.bytes -= 8 * int64(small)
	}
	p.free[c] = append(p.free[c], b[:0])
	p.bytes += need
}
