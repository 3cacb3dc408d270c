package exact

import (
	"fmt"
	"math"
)

// DefaultMaxMemory returns the default bound on the estimated peak memory of
// one exact solve: half of the machine's physical memory, or 8 GiB where
// that cannot be read. The rest is left to the Go runtime's garbage (the
// estimate counts live tables only) and to other work on the machine.
func DefaultMaxMemory() int64 {
	if m := physicalMemory(); m > 0 {
		return m / 2
	}
	return 8 << 30
}

// MemoryTooLargeError reports that the estimated peak memory of a solve is
// above Options.MaxMemory. It is returned before any table is allocated.
type MemoryTooLargeError struct {
	Estimate     int64 // bytes of tables alive at once at the peak
	MaxMemory    int64
	LargestTable int64  // entries of the largest table
	Detail       string // how the plan was made
}

func (e *MemoryTooLargeError) Error() string {
	return fmt.Sprintf("exact inference would need about %s of tables alive at once (largest table 2^%.1f entries, %s), above --max-memory %d (%s); "+
		"raise --max-memory if the machine has the memory, or use an approximate method",
		gib(e.Estimate), math.Log2(float64(e.LargestTable)), e.Detail, e.MaxMemory, gib(e.MaxMemory))
}

func gib(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", b)
}

// checkMemory estimates the peak memory of running t's engine with the given
// message budget, plus extra bytes, records it in plan and fails with a
// *MemoryTooLargeError above opt.MaxMemory.
func checkMemory(t *tree, plan *Order, opt Options, downward bool, extra int64) error {
	plan.Memory = satAdd(estimateMemory(t, opt.Memory, downward), extra)
	if plan.Memory > opt.MaxMemory {
		return &MemoryTooLargeError{Estimate: plan.Memory, MaxMemory: opt.MaxMemory, LargestTable: plan.LargestTable, Detail: "order " + plan.Heuristic}
	}
	return nil
}

// estimateMemory runs the engine's schedule on sizes only and returns the
// peak bytes of tables alive at once: every step's factor table, the held
// forward and downward messages, the buffers pooled for reuse and the
// working tables of the step being visited. downward says whether the
// backward pass sends messages and beliefs (Solve) or only reads (Sample).
func estimateMemory(t *tree, budget int64, downward bool) int64 {
	z := &sizer{t: t, budget: budget, downward: downward, msg: make([]int64, len(t.steps)), down: make([]int64, len(t.steps))}
	for k := range t.steps {
		z.fixed = satAdd(z.fixed, z.scopeBytes(k))
	}
	z.note(0)
	_ = sweep(z, t, 0, len(t.steps)) // the sizer never fails
	return z.peak
}

// sizer mirrors the engine's allocations (engine.go) in bytes.
type sizer struct {
	t           *tree
	budget      int64
	downward    bool
	msg, down   []int64
	fixed, held int64 // factor tables; held messages
	pool        int64 // released buffers kept for reuse, at most budget
	peak        int64
}

func (z *sizer) scopeBytes(k int) int64 {
	b := int64(8)
	for _, v := range z.t.steps[k].scope {
		b = satMul(b, int64(z.t.cards[v]))
	}
	return b
}

func (z *sizer) sepBytes(k int) int64 { return satMul(8, int64(z.t.steps[k].sepSize)) }

// note records the live bytes plus transient working tables.
func (z *sizer) note(transient int64) {
	z.peak = max(z.peak, satAdd(satAdd(z.fixed, z.held), satAdd(z.pool, transient)))
}

// get takes b bytes, from the pool when it holds that much.
func (z *sizer) get(b int64) {
	if z.pool >= b {
		z.pool -= b
	}
}

// put returns b bytes to the pool, which keeps them while under budget.
func (z *sizer) put(b int64) {
	if z.pool+b <= z.budget {
		z.pool += b
	}
}

func (z *sizer) forward(k int) error {
	b := z.sepBytes(k)
	z.get(b)
	z.msg[k] = b
	z.held = satAdd(z.held, b)
	z.note(0)
	return nil
}

func (z *sizer) releaseMsg(k int) {
	if b := z.msg[k]; b > 0 {
		z.held -= b
		z.put(b)
		z.msg[k] = 0
	}
}

func (z *sizer) backward(k int) error {
	s := &z.t.steps[k]
	if !z.downward {
		z.note(0)
		for _, c := range s.children {
			z.releaseMsg(c)
		}
		return nil
	}
	var rho int64
	for _, c := range s.children {
		b := z.sepBytes(c)
		z.get(b)
		rho = satAdd(rho, b)
	}
	z.note(satAdd(rho, z.scopeBytes(k))) // downward messages and the belief
	for _, c := range s.children {
		z.releaseMsg(c)
		z.down[c] = z.sepBytes(c)
		z.held = satAdd(z.held, z.down[c])
	}
	if b := z.down[k]; b > 0 {
		z.held -= b
		z.put(b)
		z.down[k] = 0
	}
	return nil
}

func (z *sizer) avail() int64 { return z.budget - z.held }

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
