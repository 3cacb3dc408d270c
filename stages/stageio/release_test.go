package stageio

import (
	"runtime"
	"testing"
)

// TestReleaseHeap: a heap above the bound is collected and handed back,
// one below it is left alone.
func TestReleaseHeap(t *testing.T) {
	garbage := make([]float64, 1<<22) // 32 MiB, garbage once released
	garbage[len(garbage)-1] = 1
	for _, c := range []struct {
		above uint64
		want  bool
	}{{above: 1 << 50, want: false}, {above: 1 << 20, want: true}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if got := ReleaseHeap(c.above); got != c.want {
			t.Errorf("above %d bytes: released %v, want %v", c.above, got, c.want)
		}
		runtime.ReadMemStats(&after)
		if forced := after.NumForcedGC - before.NumForcedGC; (forced > 0) != c.want {
			t.Errorf("above %d bytes: %d forced collections, released %v", c.above, forced, c.want)
		}
	}
	runtime.KeepAlive(garbage)
}
