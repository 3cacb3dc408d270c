package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/renn-go/renn/stages/score"
)

// numberFormats are the formats a declaration names for a number. A name
// ending in "?" (num?) makes NaN a missing value.
var numberFormats = map[string]func(float64) string{
	"num":     func(v float64) string { return formatNumber("", v) },
	"sec":     func(v float64) string { return formatNumber(score.Seconds, v) },
	"num_e":   smallE,
	"fixed2":  fixed(2),
	"fixed3":  fixed(3),
	"fixed4":  fixed(4),
	"sig3":    func(v float64) string { return significant(v, 3) },
	"sig5":    func(v float64) string { return significant(v, 5) },
	"sig6":    func(v float64) string { return significant(v, 6) },
	"sig3e":   fmtSig,
	"signed":  signed,
	"e0":      func(v float64) string { return orDash(v, strconv.FormatFloat(v, 'e', 0, 64)) },
	"e1":      func(v float64) string { return orDash(v, strconv.FormatFloat(v, 'e', 1, 64)) },
	"dash0":   func(v float64) string { return orDash(v, fixed(0)(v)) },
	"dash2":   func(v float64) string { return orDash(v, fixed(2)(v)) },
	"int":     func(v float64) string { return strconv.Itoa(int(math.Round(v))) },
	"plain":   func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
	"pct0":    func(v float64) string { return fmt.Sprintf("%.0f", 100*v) },
	"pct1":    func(v float64) string { return fmt.Sprintf("%.1f", 100*v) },
	"dur":     formatDuration,
	"gap":     fmtGap,
	"boldyes": func(v float64) string { return map[bool]string{true: "**yes**", false: "no"}[v == 1] },
	"yesno": func(v float64) string {
		if v == 0 || v == 1 {
			return map[bool]string{true: "yes", false: "no"}[v == 1]
		}
		return fixed(2)(v)
	},
}

// formatted writes v in the named format; ok is false for NaN under a name
// ending in "?".
func formatted(name string, v float64) (string, bool) {
	if strings.HasSuffix(name, "?") && math.IsNaN(v) {
		return "", false
	}
	return numberFormats[strings.TrimSuffix(name, "?")](v), true
}

func fixed(digits int) func(float64) string {
	return func(v float64) string { return strconv.FormatFloat(v, 'f', digits, 64) }
}

func orDash(v float64, s string) string {
	if math.IsNaN(v) {
		return "—"
	}
	return s
}

// formatNumber writes a value as the paper does: three decimals below 1,
// four significant digits above; seconds with three significant digits.
// Values below 0.01 keep two significant digits, which three decimals
// would lose (our GBP's errors on grids are of order 1e-3).
func formatNumber(metric string, v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case metric == score.Seconds:
		return significant(v, 3)
	case v != 0 && math.Abs(v) < 0.01:
		return significant(v, 2)
	case math.Abs(v) < 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return significant(v, 4)
}

// significant formats v with digits significant digits, without exponent.
func significant(v float64, digits int) string {
	if v == 0 {
		return "0"
	}
	e := int(math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(v, 'f', max(0, min(digits-1-e, 8)), 64)
}

// smallE writes a number as formatNumber does, but one below 0.01 in
// exponent notation (errors of order 1e-4 keep their digits).
func smallE(v float64) string {
	if v != 0 && math.Abs(v) < 0.01 {
		return strconv.FormatFloat(v, 'e', 1, 64)
	}
	return formatNumber("", v)
}

// signed writes v with its sign (− for negative) and formatNumber's digits.
func signed(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return map[bool]string{true: "−", false: "+"}[v < 0] + formatNumber("", math.Abs(v))
}

// fmtSig writes a positive quantity with three significant digits, without
// an exponent from 0.001 up; "—" for NaN.
func fmtSig(x float64) string {
	if x != 0 && math.Abs(x) < 0.001 {
		return strconv.FormatFloat(x, 'e', 2, 64)
	}
	return orDash(x, significant(x, 3))
}

// fmtGap writes a gap in nats; no sign on one that rounds to zero.
func fmtGap(g float64) string {
	if math.Abs(g) < 0.0005 {
		return "0.000"
	}
	return orDash(g, fmt.Sprintf("%+.3f", g))
}

// formatDuration writes a duration in hours and minutes, or seconds when
// short.
func formatDuration(seconds float64) string {
	switch {
	case seconds < 90:
		return fmt.Sprintf("%.0f s", seconds)
	case seconds < 3600:
		return fmt.Sprintf("%.1f min", seconds/60)
	}
	return fmt.Sprintf("%.2f h", seconds/3600)
}
