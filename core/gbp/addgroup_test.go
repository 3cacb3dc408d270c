package gbp

import (
	"math"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// TestAddGroupBitIdentical: the blocked sum over a group equals, bit for
// bit, adding one whole message after another (the plain loop), for
// state counts that are and are not multiples of the block, with -Inf
// entries.
func TestAddGroupBitIdentical(t *testing.T) {
	r := mrf.NewRand(3)
	for _, n := range []int{1, 3, 4, 7, 8, 16, 27} {
		for _, k := range []int{1, 2, 5, 18} {
			child := 1 + r.IntN(n)
			mp := make([]int32, n)
			for x := range mp {
				mp[x] = int32(r.IntN(child))
			}
			msg := make([]float64, k*child+3)
			for i := range msg {
				msg[i] = 100 * r.NormFloat64()
				if r.Float64() < 0.05 {
					msg[i] = math.Inf(-1)
				}
			}
			offs := make([]int, k)
			for i := range offs {
				offs[i] = r.IntN(len(msg) - child + 1)
			}
			got, want := make([]float64, n), make([]float64, n)
			for x := range got {
				got[x] = r.NormFloat64()
				want[x] = got[x]
			}
			addGroup(got, msg, mp, offs)
			for _, o := range offs {
				for x, j := range mp {
					want[x] += msg[o+int(j)]
				}
			}
			for x := range got {
				if math.Float64bits(got[x]) != math.Float64bits(want[x]) {
					t.Fatalf("n %d, %d messages: state %d is %v, want %v", n, k, x, got[x], want[x])
				}
			}
		}
	}
}
