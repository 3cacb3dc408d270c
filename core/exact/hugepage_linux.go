package exact

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// adviseHuge asks the kernel to back the whole huge pages inside b with
// transparent huge pages, and returns that memory (nil if none). A new
// table's pages are faulted in on first write, and with 4 KiB pages the
// faults cost more than the writes: a fifth of a Potts solve's time.
func adviseHuge(b []float64) []byte {
	n := uintptr(cap(b)) * 8
	if n < hugePage {
		return nil
	}
	start := unsafe.Pointer(unsafe.SliceData(b))
	skip := -uintptr(start) & (hugePage - 1)
	if n < skip+hugePage {
		return nil
	}
	r := unsafe.Slice((*byte)(unsafe.Add(start, skip)), (n-skip)&^(hugePage-1))
	if syscall.Madvise(r, syscall.MADV_HUGEPAGE) != nil {
		return nil
	}
	return r
}

// unadviseHuge takes back adviseHuge's advice, so that once the garbage
// collector has returned the memory, the kernel does not fill those huge
// pages again for whatever the heap puts there next.
func unadviseHuge(r []byte) { _ = syscall.Madvise(r, syscall.MADV_NOHUGEPAGE) }
