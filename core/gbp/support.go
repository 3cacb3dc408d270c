package gbp

import (
	"math"

	"github.com/renn-go/renn/core/region"
)

// support removes, when the model has zero potentials, the region states
// that no configuration of positive probability can take and that local
// reasoning on the region graph can rule out, and resets warm-start
// messages whose zeros no longer fit.
//
// Why. A state y of child C that C's own factors exclude has b_C(y) = 0
// whatever the messages say, so the consistency the updates enforce is void
// there: the message entries at y follow ratio dynamics of their own (the
// D-set divisions) and can drift without bound. Once one of them becomes a
// message's largest entry, the shift to a largest entry of 0 drags every
// allowed entry down with it (to -2770 on a 12-variable pedigree), and a zero
// that the messages know but a parent's belief does not (a D message of zero
// where the parent's marginal is positive) leaves parent and child
// inconsistent for good, while the beliefs look converged.
//
// The fix is generalized arc consistency on the region graph: start from the
// states every region's factors allow (S_R) and repeat, over every edge
// P→C, S_C ← S_C ∩ proj(S_P) and S_P ← S_P ∩ lift(S_C), until nothing
// changes. Every removed state is impossible in the model, so adding the
// indicator 1[x_R ∈ S_R] to region R's potential, and 1[x_P ∈ S_P] to the
// parent potential of every edge P→C, gives GBP on an equivalent model (its
// energies are 0 or +Inf, so the counting numbers do not matter, and the
// identity ψ_P = ψ_{P\\C} ψ_C the update is derived from still holds because
// S_P ⊆ lift(S_C)). In it, a message entry is -Inf exactly where the child's
// belief is zero: the update's sum at y ∉ S_C runs over parent states that are
// all masked, and at y ∈ S_C it has a term of positive weight. Excluded
// entries thus carry no mass and never feed an allowed one, messages are
// normalised on the allowed states (ShiftMax ignores -Inf), and every finite
// message entry is held to parent–child consistency.
//
// A model without -Inf entries has nothing to remove and is left exactly as
// it was, so its numbers do not move by a bit.
func (gb *GBP) support() {
	st := gb.st
	if !hasNegInf(gb.psiR) {
		return
	}
	if gb.allowed == nil {
		gb.allowed = make([]bool, len(gb.psiR))
	}
	for x, l := range gb.psiR {
		gb.allowed[x] = !math.IsInf(l, -1)
	}
	allowed := make([][]bool, len(st.size))
	for r := range allowed {
		allowed[r] = gb.allowedIn(r)
	}
	edges := make([]region.Edge, len(st.edges))
	for e, ed := range st.edges {
		edges[e] = region.Edge{Parent: ed.parent, Child: ed.child, Map: st.maps[ed.pc]}
	}
	region.Prune(allowed, edges)
	for x, ok := range gb.allowed {
		if !ok {
			gb.psiR[x] = math.Inf(-1)
		}
	}
	for e := range st.edges {
		ok := gb.allowedIn(st.edges[e].parent)
		p := gb.psiE[st.psiOff[e]:st.psiOff[e+1]]
		for x := range p {
			if !ok[x] {
				p[x] = math.Inf(-1)
			}
		}
		// A message kept from a previous model may be zero where this model
		// allows the child's state; damping would keep that zero forever.
		c := gb.allowedIn(st.edges[e].child)
		msg := gb.message(e)
		for y, l := range msg {
			if c[y] && math.IsInf(l, -1) {
				clear(msg)
				break
			}
		}
	}
}

func hasNegInf(x []float64) bool {
	for _, v := range x {
		if math.IsInf(v, -1) {
			return true
		}
	}
	return false
}

// allowedIn returns region r's part of gb.allowed.
func (gb *GBP) allowedIn(r int) []bool { return gb.allowed[gb.st.regOff[r]:gb.st.regOff[r+1]] }
