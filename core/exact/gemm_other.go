//go:build !amd64

package exact

// nativeMicro is the fastest micro kernel this CPU runs.
var nativeMicro = microKernel{tile: microGo}
