package stageio

import (
	"runtime/debug"
	"runtime/metrics"
)

// ReleaseAbove is the heap size, in bytes (its objects, garbage included,
// and the free memory it keeps), beyond which a stage hands memory back
// between models.
const ReleaseAbove = 256 << 20

// ReleaseHeap collects the garbage of the work just finished and returns
// the heap's free memory to the system when the heap holds more than above
// bytes, and reports whether it did. The collector's next goal is twice the
// live heap of the last collection, so without it one large exact solve's
// tables pile up under the next model's: two models of 7.7 and 5.9 GiB
// plans peaked at 14.1 GiB in one process.
func ReleaseHeap(above uint64) bool {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	if s[0].Value.Uint64()+s[1].Value.Uint64() <= above {
		return false
	}
	debug.FreeOSMemory()
	return true
}
