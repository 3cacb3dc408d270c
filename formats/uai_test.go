package formats

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/renn-go/renn/core/mrf"
)

// uaiTestLog maps potentials to log-potentials, 0 to -Inf.
func uaiTestLog(ps ...float64) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = math.Log(p)
	}
	return out
}

// uaiTestClose reports whether two log-potentials agree to tol relative to
// max(1, |a|, |b|); -Inf matches only -Inf.
func uaiTestClose(a, b, tol float64) bool {
	if a == b {
		return true
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// uaiTestSameModel fails t unless got and want have the same cards and scopes
// and log-tables that agree to tol (tol 0: exactly).
func uaiTestSameModel(t *testing.T, got, want *mrf.Model, tol float64) {
	t.Helper()
	if !uaiTestEqualInts(got.Cards, want.Cards) {
		t.Fatalf("cards = %v, want %v", got.Cards, want.Cards)
	}
	if len(got.Factors) != len(want.Factors) {
		t.Fatalf("%d factors, want %d", len(got.Factors), len(want.Factors))
	}
	for a := range want.Factors {
		g, w := got.Factors[a], want.Factors[a]
		if !uaiTestEqualInts(g.Vars, w.Vars) {
			t.Fatalf("factor %d scope = %v, want %v", a, g.Vars, w.Vars)
		}
		if len(g.LogTable) != len(w.LogTable) {
			t.Fatalf("factor %d has %d entries, want %d", a, len(g.LogTable), len(w.LogTable))
		}
		for i := range w.LogTable {
			if !uaiTestClose(g.LogTable[i], w.LogTable[i], tol) {
				t.Fatalf("factor %d entry %d = %v, want %v", a, i, g.LogTable[i], w.LogTable[i])
			}
		}
	}
}

func uaiTestEqualInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// uaiTestLogZ is log Σ_x exp(LogScore(x)) by enumerating every assignment.
func uaiTestLogZ(m *mrf.Model) float64 {
	x := make([]int, len(m.Cards))
	var scores []float64
	for {
		scores = append(scores, m.LogScore(x))
		i := len(x) - 1
		for ; i >= 0; i-- {
			x[i]++
			if x[i] < m.Cards[i] {
				break
			}
			x[i] = 0
		}
		if i < 0 {
			break
		}
	}
	hi := math.Inf(-1)
	for _, s := range scores {
		hi = math.Max(hi, s)
	}
	if math.IsInf(hi, -1) {
		return hi
	}
	sum := 0.0
	for _, s := range scores {
		sum += math.Exp(s - hi)
	}
	return hi + math.Log(sum)
}

func uaiTestRead(t *testing.T, path string) (*mrf.Model, string) {
	t.Helper()
	m, kind, err := ReadUAIFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("%s: parsed model invalid: %v", path, err)
	}
	return m, kind
}

// The hand-written files, checked value by value: unsorted scopes, zeros,
// a cardinality-1 variable, tables over several lines or sharing one, tabs,
// blank lines and CRLF line ends.
var uaiTestFiles = []struct {
	path string
	kind string
	want *mrf.Model
}{
	{"testdata/uai/markov_small.uai", "MARKOV", &mrf.Model{
		Cards: []int{2, 3, 1, 2},
		Factors: []mrf.Factor{
			{Vars: []int{1}, LogTable: uaiTestLog(0.5, 1, 2.5)},
			{Vars: []int{3, 0}, LogTable: uaiTestLog(0.1, 0.9, 0, 2)},
			{Vars: []int{2, 1}, LogTable: uaiTestLog(1, 2, 0.4)},
			{Vars: []int{1, 3, 0}, LogTable: uaiTestLog(1, 2, 3, 4, 0, 0, 5, 6, 7, 8, 9, 0.25)},
		},
	}},
	{"testdata/uai/bayes_small.uai", "BAYES", &mrf.Model{
		Cards: []int{2, 3, 2},
		Factors: []mrf.Factor{
			{Vars: []int{0}, LogTable: uaiTestLog(0.3, 0.7)},
			{Vars: []int{0, 1}, LogTable: uaiTestLog(0.2, 0.5, 0.3, 0.6, 0, 0.4)},
			{Vars: []int{1, 0, 2}, LogTable: uaiTestLog(0.9, 0.1, 0.25, 0.75, 0.5, 0.5, 0.125, 0.875, 1, 0, 0.0625, 0.9375)},
		},
	}},
}

func TestReadUAIFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range uaiTestFiles {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			m, kind := uaiTestRead(t, tc.path)
			if kind != tc.kind {
				t.Errorf("kind = %q, want %q", kind, tc.kind)
			}
			uaiTestSameModel(t, m, tc.want, 0)
		})
	}
}

// UAI 2016 comment lines, at the top and in the middle of the file (inside a
// table too), leave the model as it is without them.
func TestReadUAIComments(t *testing.T) {
	t.Parallel()
	want, _ := uaiTestRead(t, "testdata/uai/markov_small.uai")
	got, kind := uaiTestRead(t, "testdata/uai/markov_comments.uai")
	if kind != "MARKOV" {
		t.Errorf("kind = %q", kind)
	}
	uaiTestSameModel(t, got, want, 0)
}

// A BAYES model is a product of conditional probability tables, so its
// partition function is 1.
func TestReadUAIBayesNormalised(t *testing.T) {
	t.Parallel()
	m, _ := uaiTestRead(t, "testdata/uai/bayes_small.uai")
	if z := uaiTestLogZ(m); math.Abs(z) > 1e-12 {
		t.Errorf("log Z = %v, want 0", z)
	}
}

// Line breaks and spacing carry no meaning: the same tokens laid out
// differently give the same model.
func TestReadUAILayout(t *testing.T) {
	t.Parallel()
	const tokens = "MARKOV 3 2 1 3 3 2 2 0 0 2 0 2 6 0.5 2 1e-3 0 1 1 1 4 6 1 2 3 4 5 6"
	want, _, err := ReadUAI(strings.NewReader(tokens), "one-line.uai")
	if err != nil {
		t.Fatal(err)
	}
	if want.Factors[0].Vars[0] != 2 || len(want.Factors[1].Vars) != 0 {
		t.Fatalf("unexpected parse of the reference: %+v", want)
	}
	fields := strings.Fields(tokens)
	layouts := map[string]string{
		"one per line":  strings.Join(fields, "\n"),
		"CRLF and tabs": strings.Join(fields, "\t\r\n\t"),
		"blank lines":   "\n\n" + strings.Join(fields, "\n\n\n") + "\n\n",
		"BOM":           "\ufeff" + tokens,
		"BOM alone":     "\ufeff\n" + tokens,
		"lower case":    strings.Replace(tokens, "MARKOV", "markov", 1),
		"vertical tab":  strings.Join(fields, "\v\f "),
		// UAI 2016: lines beginning with 'c' are comments, anywhere.
		"comments at the top":    "c\nc comments: an example UAI file\nc\n" + tokens,
		"comments in the middle": strings.Join(fields[:8], "\n") + "\nc scopes follow\n  c indented, with 1 2 3\nc\n" + strings.Join(fields[8:], "\n") + "\nc the end",
		"comment after BOM":      "\ufeffc source: a test\n" + tokens,
		"comment with CRLF":      "c one\r\nc two\r\n" + strings.Join(fields, "\r\n") + "\r\n",
		"bare c lines":           "c\n" + strings.Join(fields, "\nc\n"),
	}
	for name, text := range layouts {
		t.Run(name, func(t *testing.T) {
			m, kind, err := ReadUAI(strings.NewReader(text), name)
			if err != nil {
				t.Fatal(err)
			}
			if kind != "MARKOV" {
				t.Errorf("kind = %q", kind)
			}
			uaiTestSameModel(t, m, want, 0)
		})
	}
	// One byte at a time exercises tokens split across reads.
	m, _, err := ReadUAI(iotest.OneByteReader(strings.NewReader(layouts["blank lines"])), "bytes.uai")
	if err != nil {
		t.Fatal(err)
	}
	uaiTestSameModel(t, m, want, 0)
}

func TestReadUAIErrors(t *testing.T) {
	t.Parallel()
	long := "MARKOV 1 " + strings.Repeat("7", uaiMaxToken+1)
	tests := []struct {
		name, text string
		want       []string // substrings of the error
	}{
		{"empty", "", []string{"bad.uai:1: unexpected end of input, want preamble MARKOV or BAYES"}},
		{"blank", "\n\n  \n", []string{"bad.uai:4: unexpected end of input, want preamble"}},
		{"unknown preamble", "MRF\n1\n2\n0\n", []string{`bad.uai:1: token 1: want preamble MARKOV or BAYES, got "MRF"`}},
		{"missing preamble", "2\n2 2\n0\n", []string{`bad.uai:1: token 1: want preamble MARKOV or BAYES, got "2"`}},
		{"no variables", "MARKOV\n0\n0\n", []string{"bad.uai:2: token 1: number of variables is 0, want >= 1"}},
		{"non-numeric count", "MARKOV\nthree\n", []string{`bad.uai:2: token 1: want number of variables (an integer), got "three"`}},
		{"count out of range", "MARKOV 99999999999999999999999", []string{`bad.uai:1: token 2: number of variables "99999999999999999999999" is out of range`}},
		{"zero cardinality", "MARKOV\n3\n2 0 2\n0\n", []string{"bad.uai:3: token 2: cardinality of variable 1 is 0, want >= 1"}},
		{"negative cardinality", "MARKOV 2 2 -2 0", []string{"bad.uai:1: token 4: cardinality of variable 1 is -2, want >= 1"}},
		{"fractional cardinality", "MARKOV 2 2 2.0 0", []string{`bad.uai:1: token 4: want cardinality of variable 1 (an integer), got "2.0"`}},
		{"truncated cards", "MARKOV\n3\n2 2\n", []string{"bad.uai:3: unexpected end of input after token 2, want cardinality of variable 2"}},
		{"missing factor count", "MARKOV\n1\n2\n", []string{"bad.uai:3: unexpected end of input after token 1, want number of factors"}},
		{"bad factor count", "MARKOV 2 2 2 x", []string{`bad.uai:1: token 5: want number of factors (an integer), got "x"`}},
		{"truncated scopes", "MARKOV\n2\n2 2\n2\n1 0\n", []string{"bad.uai:5: unexpected end of input after token 2, want scope size of factor 1"}},
		{"truncated scope", "MARKOV\n2\n2 2\n1\n2 0\n", []string{"want variable 1 of the scope of factor 0"}},
		{"variable out of range", "MARKOV\n2\n2 2\n1\n2 0 2\n", []string{"bad.uai:5: token 3: scope of factor 0: variable 2 out of range [0,2)"}},
		{"negative variable", "MARKOV\n2\n2 2\n1\n2 0 -1\n", []string{"bad.uai:5: token 3: variable 1 of the scope of factor 0 is -1, want >= 0"}},
		{"repeated variable", "MARKOV\n2\n2 2\n1\n2 1 1\n", []string{"bad.uai:5: token 3: scope of factor 0 repeats variable 1"}},
		{"scope too large", "MARKOV 2 2 2 1 3 0 1 0", []string{"bad.uai:1: token 6: scope of factor 0 has 3 variables, the model only 2"}},
		{"empty BAYES scope", "BAYES 1 2 1 0 1 1", []string{"bad.uai:1: token 5: scope of factor 0 is empty, a BAYES table needs a child variable"}},
		{"table size overflow", "MARKOV 2 4294967296 4294967296 1 2 0 1 1 1", []string{"bad.uai:1: token 3: cardinality of variable 0 is 4294967296, above the bound 16777216"}},
		// Cardinalities, counts and table sizes are bounded (mrf.Max*) before
		// anything is allocated, and are not truncated beyond int32.
		{"cardinality 2^32+2", "MARKOV\n2\n2 4294967298\n", []string{"bad.uai:3: token 2: cardinality of variable 1 is 4294967298, above the bound 16777216"}},
		{"cardinality 2^31", "MARKOV\n1\n2147483648\n", []string{"bad.uai:3: token 1: cardinality of variable 0 is 2147483648, above the bound 16777216"}},
		{"cardinality 2^31-1", "MARKOV 1 2147483647 0", []string{"bad.uai:1: token 3: cardinality of variable 0 is 2147483647, above the bound"}},
		{"too many variables", "MARKOV 268435457 2", []string{"bad.uai:1: token 2: number of variables is 268435457, above the bound 268435456"}},
		{"too many states", "MARKOV 17 " + strings.Repeat("16777216 ", 17), []string{"bad.uai:1: token 19: variables 0 to 16 have 285212672 states in all, above the bound 268435456"}},
		{"too many factors", "MARKOV 1 2 268435457", []string{"bad.uai:1: token 4: number of factors is 268435457, above the bound 268435456"}},
		{"table above bound", "MARKOV 2 16384 16385 1 2 0 1", []string{"bad.uai:1: token 8: table of factor 0 is too large: the cardinalities of its scope multiply to more than 268435456 entries"}},
		{
			"wrong table size",
			"MARKOV\n5\n2 2 2 2 2\n3\n1 0\n1 1\n2 0 4\n2 1 1\n2 1 1\n3 1 1 1\n",
			[]string{"bad.uai:10: token 1: table of factor 2 has 3 entries, scope (0 4) needs 4"},
		},
		// The table of factor 0 lacks an entry: the size of the next table is
		// read as its last entry, and the next table fails.
		{"table one entry short", "MARKOV\n3\n2 2 2\n2\n2 0 1\n2 1 2\n4\n0.1 0.2 0.3\n4\n0.5 0.6 0.7 0.8\n",
			[]string{`bad.uai:9: token 1: table of factor 0 is one entry short: scope (0 1) needs 4 entries, and the last one read, "4", is the size of the table of factor 1 (which then does not fit)`}},
		{"table one entry short, integer entries", "MARKOV\n3\n2 2 2\n2\n2 0 1\n2 1 2\n4\n1 2 3\n4\n5 6 7 8\n",
			[]string{`bad.uai:9: token 1: table of factor 0 is one entry short`}},
		{"huge table size", "MARKOV 1 2 1 1 0 1000000000000 1 1", []string{"bad.uai:1: token 7: table of factor 0 has 1000000000000 entries, scope (0) needs 2"}},
		{"missing table", "MARKOV\n1\n2\n1\n1 0\n", []string{"bad.uai:5: unexpected end of input after token 2, want table size of factor 0"}},
		{"truncated table", "MARKOV\n1\n4\n1\n1 0\n4\n1 2\n", []string{"bad.uai:7: unexpected end of input after token 2, want entry 2 of the 4-entry table of factor 0"}},
		{"non-numeric entry", "MARKOV\n1\n2\n1\n1 0\n2\n1 abc\n", []string{`bad.uai:7: token 2: entry 1 of factor 0: want a potential (a number), got "abc"`}},
		{"negative entry", "MARKOV\n1\n2\n1\n1 0\n2\n1 -0.5\n", []string{`bad.uai:7: token 2: entry 1 of factor 0 is "-0.5", want a finite potential >= 0`}},
		{"NaN entry", "MARKOV 1 2 1 1 0 2 NaN 1", []string{`bad.uai:1: token 8: entry 0 of factor 0 is "NaN", want a finite potential >= 0`}},
		{"Inf entry", "MARKOV 1 2 1 1 0 2 1 +Inf", []string{`token 9: entry 1 of factor 0 is "+Inf"`}},
		{"overflowing entry", "MARKOV 1 2 1 1 0 2 1e400 1", []string{`token 8: entry 0 of factor 0 is "1e400", want a finite potential >= 0`}},
		{"trailing garbage", "MARKOV\n1\n2\n1\n1 0\n2\n1 2\n\nextra\n", []string{`bad.uai:9: token 1: unexpected "extra" after the last table`}},
		{"trailing number", "MARKOV 1 2 1 1 0 2 1 2 3", []string{`bad.uai:1: token 10: unexpected "3" after the last table`}},
		{"token too long", long, []string{"bad.uai:1: token 3: token longer than 4096 bytes"}},
		// Only a line's first token starts a comment, and the count of lines
		// goes on through comments.
		{"c after a token", "MARKOV 1 c\n", []string{`bad.uai:1: token 3: want cardinality of variable 0 (an integer), got "c"`}},
		{"comment only", "c nothing here\nc\n", []string{"bad.uai:3: unexpected end of input, want preamble MARKOV or BAYES"}},
		{"line after comments", "c a\nc b\nMARKOV\nx\n", []string{`bad.uai:4: token 1: want number of variables (an integer), got "x"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := ReadUAI(strings.NewReader(tc.text), "bad.uai")
			if err == nil {
				t.Fatalf("no error; got model %+v", m)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestReadUAIReadError(t *testing.T) {
	t.Parallel()
	// TimeoutReader fails on the second read, after the whole text.
	r := iotest.TimeoutReader(strings.NewReader("MARKOV\n2\n2 2\n1 2 0 1 4 1 2 3 4\n"))
	_, _, err := ReadUAI(r, "flaky.uai")
	if !errors.Is(err, iotest.ErrTimeout) || !strings.HasPrefix(err.Error(), "flaky.uai:5: read:") {
		t.Errorf("err = %v, want the timeout wrapped with the position", err)
	}
	fail := errors.New("disk on fire")
	if _, _, err := ReadUAI(iotest.ErrReader(fail), "broken.uai"); !errors.Is(err, fail) {
		t.Errorf("err = %v, want %v wrapped", err, fail)
	}
	if _, _, err := ReadUAIFile(filepath.Join(t.TempDir(), "missing.uai")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want os.ErrNotExist", err)
	}
}

// A declared count far beyond the input must fail at the end of the input
// without reserving memory for the declared size first.
func TestReadUAIHugeCounts(t *testing.T) {
	// Not parallel: it measures the allocations of the whole process.
	tests := map[string]string{
		"variables": "MARKOV 100000000 2 2 2",
		"factors":   "MARKOV 1 2 100000000 1 0 1 0",
		"table":     "MARKOV 2 10000 10000 1 2 0 1 100000000 0.5 0.25",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err := ReadUAI(strings.NewReader(text), "huge.uai")
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), "unexpected end of input") {
				t.Fatalf("err = %v, want unexpected end of input", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
				t.Errorf("allocated %d bytes for a %d-byte input", grew, len(text))
			}
		})
	}
}

func TestUAILogExp(t *testing.T) {
	t.Parallel()
	// Powers of two, down through the subnormals: log must follow the
	// exponent below 2^-1022, and exp(log(p)) must give p back, to the
	// precision of log(p) (≈ 1e-13 relative near ±709) or exactly for the
	// small subnormals, whose spacing is coarser than that.
	for _, k := range []int{1074, 1073, 1060, 1040, 1023, 1022, 1000, 0, -1000} {
		p := math.Ldexp(1, -k)
		if got, want := uaiLog(p), -float64(k)*math.Ln2; !uaiTestClose(got, want, 1e-15) {
			t.Errorf("log(2^-%d) = %v, want %v", k, got, want)
		}
		got := uaiExp(uaiLog(p))
		if k > 1040 && got != p || math.Abs(got-p) > 2e-13*p {
			t.Errorf("exp(log(2^-%d)) = %v, want %v", k, got, p)
		}
	}
	if got := uaiLog(3 * 0x1p-1074); !uaiTestClose(got, math.Log(3)-1074*math.Ln2, 1e-15) {
		t.Errorf("log(3·2^-1074) = %v", got)
	}
	// Large log-potentials: finite up to log(MaxFloat64).
	p := math.MaxFloat64
	for range 100 {
		got := uaiExp(uaiLog(p))
		if math.IsInf(got, 0) || math.Abs(got-p) > 1e-13*p {
			t.Fatalf("exp(log(%v)) = %v", p, got)
		}
		p = math.Nextafter(p, 0)
	}
	if got := uaiExp(709.79); !math.IsInf(got, 1) {
		t.Errorf("exp(709.79) = %v, want +Inf", got)
	}
	for _, x := range []float64{-745.2, -700, -1, 0, 1e-300, 1, 100, 699.9, 700.1, 705, 709.5, 709.78} {
		half := math.Exp(x / 2)
		if got, want := uaiExp(x), half*half; math.Abs(got-want) > 1e-13*want {
			t.Errorf("exp(%v) = %v, want %v", x, got, want)
		}
	}
}

// uaiTestRandomModel draws a small model with unsorted scopes (possibly
// empty), cardinality-1 variables, zero potentials and log-potentials up to
// ±700 (inside the range where raw potentials are normal floats).
func uaiTestRandomModel(r *rand.Rand) *mrf.Model {
	n := 1 + r.IntN(5)
	m := &mrf.Model{Cards: make([]int, n)}
	for i := range m.Cards {
		m.Cards[i] = 1 + r.IntN(3)
	}
	for range r.IntN(6) {
		vars := r.Perm(n)[:r.IntN(min(n, 3)+1)]
		table := make([]float64, mrf.TableSize(m.Cards, vars))
		for i := range table {
			switch r.IntN(8) {
			case 0:
				table[i] = math.Inf(-1)
			case 1:
				table[i] = (2*r.Float64() - 1) * 700
			default:
				table[i] = r.NormFloat64() * 3
			}
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: vars, LogTable: table})
	}
	return m
}

func uaiTestRoundTrip(t *testing.T, m *mrf.Model) *mrf.Model {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteUAI(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, kind, err := ReadUAI(bytes.NewReader(buf.Bytes()), "round-trip.uai")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if kind != "MARKOV" {
		t.Errorf("kind = %q, want MARKOV", kind)
	}
	return got
}

func TestWriteUAIRoundTrip(t *testing.T) {
	t.Parallel()
	models := map[string]*mrf.Model{}
	for _, tc := range uaiTestFiles {
		models[tc.path] = tc.want
	}
	grid, err := mrf.GridEdges(3, false)
	if err != nil {
		t.Fatal(err)
	}
	models["ising grid"] = mrf.RandomIsing(9, grid, 1, 42)
	models["ising complete"] = mrf.RandomIsing(6, mrf.CompleteEdges(6), 2, 7)
	r := mrf.NewRand(1)
	for i := range 200 {
		models["random "+strconv.Itoa(i)] = uaiTestRandomModel(r)
	}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			got := uaiTestRoundTrip(t, m)
			uaiTestSameModel(t, got, m, 1e-12)
			zw, zg := uaiTestLogZ(m), uaiTestLogZ(got)
			if !uaiTestClose(zg, zw, 1e-12) {
				t.Errorf("log Z after round trip = %v, want %v", zg, zw)
			}
		})
	}
}

// Potentials read from a file survive a write and a read: subnormal ones and
// zeros exactly, the others to a few ulps.
func TestWriteUAIRoundTripPotentials(t *testing.T) {
	t.Parallel()
	entries := []struct {
		text  string
		exact bool
	}{
		{"5e-324", true}, {"1.5e-323", true}, {"1e-310", true}, {"0", true}, {"1", true},
		{"2.2250738585072014e-308", false}, {"0.1", false}, {"1.7976931348623157e+308", false}, {"123456.789", false},
	}
	text := "MARKOV 1 " + strconv.Itoa(len(entries)) + " 1 1 0 " + strconv.Itoa(len(entries))
	for _, e := range entries {
		text += " " + e.text
	}
	m, _, err := ReadUAI(strings.NewReader(text), "potentials.uai")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteUAI(&buf, m); err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(buf.String())
	if want := strings.Fields(text); len(fields) != len(want) || strings.Join(fields[:7], " ") != strings.Join(want[:7], " ") {
		t.Fatalf("wrote %q, want the tokens of %q", buf.String(), text)
	}
	for i, e := range entries {
		got := fields[7+i]
		w, _ := strconv.ParseFloat(e.text, 64)
		g, err := strconv.ParseFloat(got, 64)
		if err != nil || e.exact && got != e.text || math.Abs(g-w) > 1e-13*w {
			t.Errorf("entry %d written as %s, want %s", i, got, e.text)
		}
	}
}

func TestWriteUAILayout(t *testing.T) {
	t.Parallel()
	m := &mrf.Model{
		Cards: []int{2, 3, 1},
		Factors: []mrf.Factor{
			{Vars: []int{1, 0}, LogTable: []float64{0, math.Log(2), math.Inf(-1), math.Log(4), math.Log(5), -1.5}},
			{Vars: []int{2}, LogTable: []float64{0}},
			{Vars: []int{}, LogTable: []float64{1}},
		},
	}
	g := func(x float64) string { return strconv.FormatFloat(math.Exp(x), 'g', -1, 64) }
	want := "MARKOV\n3\n2 3 1\n3\n2 1 0\n1 2\n0\n" +
		"\n6\n1 " + g(math.Log(2)) + "\n0 " + g(math.Log(4)) + "\n" + g(math.Log(5)) + " " + g(-1.5) + "\n" +
		"\n1\n1\n" +
		"\n1\n" + g(1) + "\n"
	var buf bytes.Buffer
	if err := WriteUAI(&buf, m); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestWriteUAIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    *mrf.Model
		want string
	}{
		{"nil", nil, "nil model"},
		{"no variables", &mrf.Model{}, "no variables"},
		{"bad table", &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0}}}}, "factor 0: table has 1 entries"},
		{"NaN", &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, math.NaN()}}}}, "table entry 1 is NaN"},
		{"overflow", &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, 710}}}}, "factor 0 entry 1: log-potential 710 exceeds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteUAI(&bytes.Buffer{}, tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	// A failing writer's error is returned.
	fail := errors.New("pipe closed")
	m := uaiTestFiles[0].want
	if err := WriteUAI(uaiFailWriter{fail}, m); !errors.Is(err, fail) {
		t.Errorf("err = %v, want %v wrapped", err, fail)
	}
}

type uaiFailWriter struct{ err error }

func (w uaiFailWriter) Write([]byte) (int, error) { return 0, w.err }

func TestWriteUAIFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "model.uai")
	m := uaiTestFiles[1].want
	if err := os.WriteFile(path, []byte("old contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteUAIFile(path, m); err != nil {
		t.Fatal(err)
	}
	got, _ := uaiTestRead(t, path)
	uaiTestSameModel(t, got, m, 1e-12)
	uaiTestOnlyFile(t, dir, "model.uai")

	// An invalid model leaves the existing file as it was and no temporary file.
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := &mrf.Model{Cards: []int{2}, Factors: []mrf.Factor{{Vars: []int{0}, LogTable: []float64{0, 800}}}}
	if err := WriteUAIFile(path, bad); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want an error naming %s", err, path)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("failed write changed the existing file")
	}
	uaiTestOnlyFile(t, dir, "model.uai")

	// A missing directory is an error, not a panic.
	if err := WriteUAIFile(filepath.Join(dir, "no", "such", "dir.uai"), m); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want os.ErrNotExist", err)
	}
	uaiTestOnlyFile(t, dir, "model.uai")
}

func uaiTestOnlyFile(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != name {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only %s", names, name)
	}
}

// uaiBenchModel is a 100-variable model with 300 pairwise factors over 10
// states each: 30,000 potentials.
func uaiBenchModel() *mrf.Model {
	r := mrf.NewRand(3)
	m := &mrf.Model{Cards: make([]int, 100)}
	for i := range m.Cards {
		m.Cards[i] = 10
	}
	for range 300 {
		vars := r.Perm(100)[:2]
		table := make([]float64, 100)
		for i := range table {
			table[i] = r.NormFloat64()
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: vars, LogTable: table})
	}
	return m
}

func BenchmarkReadUAI(b *testing.B) {
	var buf bytes.Buffer
	if err := WriteUAI(&buf, uaiBenchModel()); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ReadUAI(bytes.NewReader(data), "bench.uai"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteUAI(b *testing.B) {
	m := uaiBenchModel()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteUAI(&buf, m); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
