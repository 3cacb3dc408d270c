package mcmc

import "math"

// Batches: every chain sums its samples over consecutive batches of sweeps.
// Once 2·minBatches batches are full, neighbours merge and the batch size
// doubles, so a chain of any length holds between minBatches and
// 2·minBatches batches (fewer only in its first sweeps). The batches give
// the burn-in (whole batches discarded when the run ends), the batch-means
// standard errors, the split halves of R̂ and the stepping-stone sums.
const minBatches = 16

// batches are one chain's samples of the β = 1 replica, summed per batch.
type batches struct {
	width  int       // counted states per row (layout.width)
	rungs  int       // stepping-stone sums per row (ladder length - 1)
	size   int       // sweeps per full batch
	n      int       // batches begun
	fill   int       // sweeps in the last batch
	counts []int32   // row b: counts[b*width:(b+1)*width]
	logw   []float64 // row b: ln Σ_t exp((β_{k-1}-β_k)·E_k(t)), k = 1..rungs
	// energy row b: Σ_t E(t) and Σ_t E(t)² of the counted replica's
	// tempered log potential, for its autocorrelation time.
	energy []float64
	// trips row b: arrivals at β = 1 of replicas that have been at β = 0
	// since their last visit to β = 1 (pt's round trips).
	trips []float64
}

func newBatches(width, rungs int) *batches {
	b := &batches{width: width, rungs: rungs, size: 1,
		counts: make([]int32, 2*minBatches*width), logw: make([]float64, 2*minBatches*rungs),
		energy: make([]float64, 4*minBatches), trips: make([]float64, 2*minBatches)}
	for k := range b.logw {
		b.logw[k] = math.Inf(-1)
	}
	return b
}

// begin starts the next sweep's sample and returns its row.
func (b *batches) begin() int {
	if b.n == 0 || b.fill == b.size {
		if b.n == 2*minBatches {
			b.merge()
		}
		b.n++
		b.fill = 0
	}
	b.fill++
	return b.n - 1
}

// merge sums neighbouring batches: 2·minBatches full batches become
// minBatches of twice the size.
func (b *batches) merge() {
	w, r := b.width, b.rungs
	for j := range minBatches {
		dst, a, c := b.counts[j*w:(j+1)*w], b.counts[2*j*w:(2*j+1)*w], b.counts[(2*j+1)*w:(2*j+2)*w]
		for k := range dst {
			dst[k] = a[k] + c[k]
		}
		lw, la, lc := b.logw[j*r:(j+1)*r], b.logw[2*j*r:(2*j+1)*r], b.logw[(2*j+1)*r:(2*j+2)*r]
		for k := range lw {
			lw[k] = logAddExp(la[k], lc[k])
		}
	}
	for j := range minBatches {
		b.energy[2*j] = b.energy[4*j] + b.energy[4*j+2]
		b.energy[2*j+1] = b.energy[4*j+1] + b.energy[4*j+3]
	}
	clear(b.energy[2*minBatches:])
	for j := range minBatches {
		b.trips[j] = b.trips[2*j] + b.trips[2*j+1]
	}
	clear(b.trips[minBatches:])
	clear(b.counts[minBatches*w:])
	for k := minBatches * r; k < len(b.logw); k++ {
		b.logw[k] = math.Inf(-1)
	}
	b.n = minBatches
	b.size *= 2
}

// sweeps returns the sweeps recorded.
func (b *batches) sweeps() int { return (b.n-1)*b.size + b.fill }

// burnIn returns the batches discarded as burn-in for fraction f: ⌈f·n⌉,
// leaving at least one.
func (b *batches) burnIn(f float64) int {
	return min(int(math.Ceil(f*float64(b.n))), b.n-1)
}

// full returns the full batches from row d on: rows d to d+full-1.
func (b *batches) full(d int) int {
	if b.fill == b.size {
		return b.n - d
	}
	return b.n - 1 - d
}

func (b *batches) row(k int) []int32 { return b.counts[k*b.width : (k+1)*b.width] }

func logAddExp(a, c float64) float64 {
	if a < c {
		a, c = c, a
	}
	if math.IsInf(c, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(c-a))
}
