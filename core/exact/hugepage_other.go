//go:build !linux

package exact

func adviseHuge([]float64) []byte { return nil }

func unadviseHuge([]byte) {}
