package exact

import (
	"os"
	"strings"
	"testing"
	"unsafe"
)

// thpAvailable reports whether the kernel takes transparent huge page
// advice (madvise or always mode).
func thpAvailable() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !strings.Contains(string(b), "[never]")
}

func TestAdviseHuge(t *testing.T) {
	if !thpAvailable() {
		t.Skip("the kernel has transparent huge pages off")
	}
	for _, n := range []int{0, 1000, hugePage / 8, hugePage/8 + 1, 2 * hugePage / 8, 5*hugePage/8 + 123} {
		b := make([]float64, n)
		r := adviseHuge(b)
		bs, be := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))+uintptr(8*cap(b))
		if r == nil {
			// Only a buffer spanning no whole aligned huge page gets none.
			if first := (bs + hugePage - 1) &^ (hugePage - 1); n > 0 && first+hugePage <= be {
				t.Errorf("n=%d: no advice for a buffer spanning a huge page", n)
			}
			continue
		}
		rs := uintptr(unsafe.Pointer(unsafe.SliceData(r)))
		if rs%hugePage != 0 || len(r)%hugePage != 0 || len(r) == 0 {
			t.Errorf("n=%d: advised [%#x, +%d) is not whole huge pages", n, rs, len(r))
		}
		if rs < bs || rs+uintptr(len(r)) > be || bs+hugePage <= rs || rs+uintptr(len(r))+hugePage <= be {
			t.Errorf("n=%d: advised [%#x, +%d) is not the whole huge pages of [%#x, %#x)", n, rs, len(r), bs, be)
		}
		unadviseHuge(r)
	}
}

// TestPoolRelease: a huge pool advises its large new buffers until release,
// and a pool without huge advises none.
func TestPoolRelease(t *testing.T) {
	if !thpAvailable() {
		t.Skip("the kernel has transparent huge pages off")
	}
	p := &pool{free: map[int][][]float64{}, limit: 1 << 30, huge: true}
	p.put(p.get(3 * hugePage / 8))
	p.get(3 * hugePage / 8) // reused: not advised again
	p.get(100)
	if len(p.advised) != 1 {
		t.Fatalf("%d buffers advised, want 1", len(p.advised))
	}
	p.release()
	if p.advised != nil {
		t.Error("release kept the advised buffers")
	}
	q := &pool{free: map[int][][]float64{}, limit: 1 << 30}
	q.get(3 * hugePage / 8)
	if len(q.advised) != 0 {
		t.Error("a pool without huge advised a buffer")
	}
}
