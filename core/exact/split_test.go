package exact

import (
	"testing"
)

// splitCounts counts, by the loop's name, the prepared loops that are split
// between two workers (their tables reach parallelMin), so that a test can
// require that it ran every split path.
type splitCounts map[string]int

// The names of the split loops.
const (
	splitSweep     = "strided sweeps"
	splitBlocks    = "block products"
	splitPermute   = "permutations"
	splitDgemm     = "Dgemm batches"
	splitGather    = "gatherGemm batches"
	splitRows      = "row-kernel batches"
	splitNormalise = "normalisations"
)

// addKernel counts the split loops of k; nil adds nothing.
func (c splitCounts) addKernel(k *kernel) {
	switch {
	case k == nil:
	case k.bg != nil:
		if k.bg.outer.split >= 0 {
			c[splitBlocks]++
		}
	case k.mm == nil:
		if k.g.split >= 0 {
			c[splitSweep]++
		}
	default:
		c.addMatmul(k.mm)
	}
}

// addMatmul counts the split loops of m: its batches (split by the rule
// multiply and splitBatches share) and its permutations.
func (c splitCounts) addMatmul(m *matmul) {
	if m.nb >= 2 && m.nb*m.nl*m.nk*m.nr >= parallelMin {
		switch {
		case m.g == nil:
			c[splitDgemm]++
		case m.small != nil:
			c[splitRows]++
		default:
			c[splitGather]++
		}
	}
	if m.g == nil {
		for _, p := range []*permutation{m.xp, m.yp, m.op} {
			c.addPermutation(p)
		}
	}
}

// addPermutation counts p if its chunks are shared between two workers.
func (c splitCounts) addPermutation(p *permutation) {
	if p != nil && p.outer.split >= 0 {
		c[splitPermute]++
	}
}

// require fails t unless every named loop was split at least min times
// (the row kernel's batches only on CPUs that have it).
func (c splitCounts) require(t *testing.T, min int, names ...string) {
	t.Helper()
	for _, n := range names {
		if n == splitRows && !hasSmallRows {
			continue
		}
		if c[n] < min {
			t.Errorf("%s split between two workers %d times, want at least %d (all split loops: %v)",
				n, c[n], min, map[string]int(c))
		}
	}
	t.Logf("split loops: %v", map[string]int(c))
}

// addPlan counts the split loops of the kernels and permutations pr made as
// it ran, and its normalisations if a table reached parallelMin entries.
func (c splitCounts) addPlan(pr *Prepared) {
	for _, ks := range pr.p.kern {
		for _, k := range ks {
			c.addKernel(k)
		}
	}
	for _, ks := range pr.p.leafKern {
		for _, k := range ks {
			c.addKernel(k)
		}
	}
	for _, p := range pr.p.ownPerm {
		c.addPermutation(p)
	}
	if pr.Plan.LargestTable >= parallelMin {
		c[splitNormalise]++
	}
}
