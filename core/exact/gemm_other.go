//go:build !amd64

package exact

// nativeMicro is the fastest micro kernel this CPU runs.
var nativeMicro = microKernel{tile: microGo}

// hasSmallRows says this CPU runs smallRows: none but amd64's.
const hasSmallRows = false

// smallRows is amd64's assembly; never called here, as hasSmallRows is
// false.
func smallRows(x *float64, xRows, xCols *int, y *float64, yRows *int, out *float64, oRows *int, m, k, nv int, mask *int64, lanes *float64) {
	panic("exact: no row kernel on this CPU")
}
