//go:build !linux

package exact

// physicalMemory returns 0: the machine's memory is not read on this system.
func physicalMemory() int64 { return 0 }
