package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// numberFormats are the formats a declaration names for a number. A name
// ending in "?" (num?) writes NaN as a missing value.
var numberFormats = map[string]func(float64) string{
	"num":    func(v float64) string { return formatNumber("", v) },
	"sec":    func(v float64) string { return formatNumber("seconds", v) },
	"num_e":  smallE,
	"fixed0": fixed(0), "fixed2": fixed(2), "fixed3": fixed(3), "fixed4": fixed(4),
	"sig3": sig(3), "sig5": sig(5), "sig6": sig(6),
	"signed": signed,
	"e0":     func(v float64) string { return orDashE(v, 0) },
	"e1":     func(v float64) string { return orDashE(v, 1) },
	"int":    func(v float64) string { return strconv.Itoa(int(math.Round(v))) },
	"yesno": func(v float64) string {
		switch v {
		case 1:
			return "yes"
		case 0:
			return "no"
		}
		return fixed(2)(v)
	},
	"boldyes": func(v float64) string {
		if v == 1 {
			return "**yes**"
		}
		return "no"
	},
	"gap":    fmtGap,
	"pct1":   func(v float64) string { return fmt.Sprintf("%.1f", 100*v) },
	"pct0":   func(v float64) string { return fmt.Sprintf("%.0f", 100*v) },
	"ratio1": func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"dur":    formatDuration,
	"sig3e":  fmtSig,
	"plain":  func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
	"dash0": func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return fixed(0)(v)
	},
	"dash2": fixedOrDash,
}

// format writes v in the named format; ok is false for an unknown name,
// or for NaN under a name ending in "?".
func format(name string, v float64) (string, bool) {
	nanMissing := strings.HasSuffix(name, "?")
	f := numberFormats[strings.TrimSuffix(name, "?")]
	if f == nil || nanMissing && math.IsNaN(v) {
		return "", false
	}
	return f(v), true
}

func fixed(digits int) func(float64) string {
	return func(v float64) string { return strconv.FormatFloat(v, 'f', digits, 64) }
}

func sig(digits int) func(float64) string {
	return func(v float64) string { return significant(v, digits) }
}

// smallE writes a number as formatNumber does, but one below 0.01 in
// exponent notation (errors of order 1e-4 keep their digits).
func smallE(v float64) string {
	if v != 0 && math.Abs(v) < 0.01 && !math.IsNaN(v) {
		return strconv.FormatFloat(v, 'e', 1, 64)
	}
	return formatNumber("", v)
}

// orDashE writes v in exponent notation with digits decimals, "—" for NaN.
func orDashE(v float64, digits int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'e', digits, 64)
}

// signed writes v with its sign (− for negative), as formatNumber does
// its magnitude.
func signed(v float64) string {
	s := formatNumber("", math.Abs(v))
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v < 0:
		return "−" + s
	}
	return "+" + s
}

// fixedOrDash writes v with two decimals, "—" for NaN.
func fixedOrDash(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// fmtSig writes a positive quantity with three significant digits, without
// an exponent from 0.001 up; "—" for NaN.
func fmtSig(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case x == 0:
		return "0"
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case math.Abs(x) >= 0.001:
		return strconv.FormatFloat(x, 'f', max(2-int(math.Floor(math.Log10(math.Abs(x)))), 0), 64)
	}
	return strconv.FormatFloat(x, 'e', 2, 64)
}
