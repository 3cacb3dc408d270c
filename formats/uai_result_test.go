package formats

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The layout of the UAI 2014/2022 result format, byte for byte.
func TestWriteMARLayout(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteMAR(&b, [][]float64{{0.1, 0.9}, {0.3, 0.7}, {0.2, 0.2, 0.6}}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "MAR\n3 2 0.1 0.9 2 0.3 0.7 3 0.2 0.2 0.6\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	b.Reset()
	if err := WritePR(&b, -0.2008); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "PR\n-0.2008\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWriteMARErrors(t *testing.T) {
	t.Parallel()
	for name, marg := range map[string][][]float64{"no variables": nil, "empty marginal": {{1}, {}}} {
		if err := WriteMAR(&bytes.Buffer{}, marg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Written files read back exactly: every number is printed in the shortest
// form that parses to the same float64.
func TestUAIResultRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		n := 1 + rng.IntN(20)
		marg := make([][]float64, n)
		cards := make([]int, n)
		for i := range marg {
			cards[i] = 1 + rng.IntN(5)
			marg[i] = make([]float64, cards[i])
			s := 0.0
			for j := range marg[i] {
				marg[i][j] = math.Exp(-30 * rng.Float64()) // down to 1e-13
				s += marg[i][j]
			}
			for j := range marg[i] {
				marg[i][j] /= s
			}
		}
		marg[0][0] = 0 // an excluded state
		logZ := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(8)))
		var got [][]float64
		var z float64
		var err error
		if trial < 3 { // through files (each write syncs: keep them few)
			dir := t.TempDir()
			mar, pr := filepath.Join(dir, "m.uai.MAR"), filepath.Join(dir, "m.uai.PR")
			if err := WriteMARFile(mar, marg); err != nil {
				t.Fatal(err)
			}
			if err := WritePRFile(pr, logZ); err != nil {
				t.Fatal(err)
			}
			if got, err = ReadMARFile(mar, cards); err != nil {
				t.Fatal(err)
			}
			if z, err = ReadPRFile(pr); err != nil {
				t.Fatal(err)
			}
		} else {
			var bm, bp bytes.Buffer
			if err := WriteMAR(&bm, marg); err != nil {
				t.Fatal(err)
			}
			if err := WritePR(&bp, logZ); err != nil {
				t.Fatal(err)
			}
			if got, err = ReadMAR(&bm, "m.MAR", cards); err != nil {
				t.Fatal(err)
			}
			if z, err = ReadPR(&bp, "m.PR"); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(got, marg) {
			t.Fatalf("trial %d: MAR read back %v, wrote %v", trial, got, marg)
		}
		if z != logZ {
			t.Fatalf("trial %d: PR read back %v, wrote %v", trial, z, logZ)
		}
	}
	// Values a failed or impossible answer may hold.
	for _, v := range []float64{math.Inf(-1), math.Inf(1), 0, -0.0, 1e-300} {
		var b bytes.Buffer
		if err := WritePR(&b, v); err != nil {
			t.Fatal(err)
		}
		z, err := ReadPR(&b, "x.PR")
		if err != nil || z != v {
			t.Errorf("PR %v read back as %v, %v", v, z, err)
		}
	}
	var b bytes.Buffer
	if err := WritePR(&b, math.NaN()); err != nil {
		t.Fatal(err)
	}
	if z, err := ReadPR(&b, "x.PR"); err != nil || !math.IsNaN(z) {
		t.Errorf("PR NaN read back as %v, %v", z, err)
	}
}

func TestReadMAR(t *testing.T) {
	t.Parallel()
	want := [][]float64{{0.1, 0.9}, {0.3, 0.7}, {0.2, 0.2, 0.6}}
	tests := map[string]string{
		"2014 form":           "MAR\n3 2 0.1 0.9 2 0.3 0.7 3 0.2 0.2 0.6\n",
		"over lines":          "MAR\n3\n2 0.1 0.9\n2 0.3 0.7\n3 0.2 0.2 0.6",
		"six digits":          "MAR\n3 2 0.100000 0.900000 2 0.300000 0.700000 3 0.200000 0.200000 0.600000\n",
		"lower-case task":     "mar 3 2 0.1 0.9 2 0.3 0.7 3 0.2 0.2 0.6",
		"last solution":       "MAR\n3 2 0.5 0.5 2 0.5 0.5 3 0.3 0.3 0.4\n-BEGIN-\n3 2 0.1 0.9 2 0.3 0.7 3 0.2 0.2 0.6\n",
		"2010 form, one case": "MAR\n1\n3 2 0.1 0.9 2 0.3 0.7 3 0.2 0.2 0.6\n",
		"2010 form, -BEGIN-":  "MAR\n1\n3 2 0.5 0.5 2 0.5 0.5 3 0.3 0.3 0.4\n-BEGIN-\n1\n3 2 0.1 0.9 2 0.3 0.7 3 0.2 0.2 0.6\n",
		"comments":            "c from a solver\nMAR\nc the solution\n3 2 0.1 0.9 2 0.3 0.7 3 0.2 0.2 0.6\n",
	}
	for name, text := range tests {
		got, err := ReadMAR(strings.NewReader(text), "x.MAR", []int{2, 2, 3})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	// One variable: "1 2 p q" is the 2014 form, not a 2010 count.
	got, err := ReadMAR(strings.NewReader("MAR 1 2 0.25 0.75"), "x.MAR", nil)
	if err != nil || !reflect.DeepEqual(got, [][]float64{{0.25, 0.75}}) {
		t.Errorf("one variable: got %v, %v", got, err)
	}
}

func TestReadPR(t *testing.T) {
	t.Parallel()
	tests := map[string]float64{
		"PR\n-0.2008\n":                    -0.2008,
		"PR -0.2008 U":                     -0.2008,
		"PR\n1\n-0.2008 L\n":               -0.2008, // the 2010 form
		"PR\n1\n":                          1,
		"PR\n1 U\n":                        1,
		"PR\n3.5\n-BEGIN-\n-12.25\n":       -12.25,
		"c comment\nPR\nc value\n-1.5e+03": -1500,
		"pr -inf":                          math.Inf(-1),
	}
	for text, want := range tests {
		got, err := ReadPR(strings.NewReader(text), "x.PR")
		if err != nil || got != want {
			t.Errorf("%q: got %v, %v; want %v", text, got, err, want)
		}
	}
}

func TestReadUAIResultErrors(t *testing.T) {
	t.Parallel()
	cards := []int{2, 3}
	mar := []struct{ text, want string }{
		{"", "x:1: unexpected end of input, want task MAR"},
		{"PR\n-1\n", `x:1: token 1: want task MAR, got "PR"`},
		{"MAR\n", "x: no MAR solution after the last task or -BEGIN- line"},
		{"MAR\n2 2 0.5 0.5 3 0.1 0.2 0.7\n-BEGIN-\n", "x: no MAR solution"},
		{"MAR\n3 2 0.5 0.5 3 0.1 0.2 0.7", "x:2: token 1: 3 variables, the model has 2"},
		{"MAR\n2 2 0.5 0.5 2 0.1 0.9", "x:2: token 5: variable 1 has cardinality 2, the model says 3"},
		{"MAR\n2 2 0.5 0.5 3 0.1 0.2", "x:2: token 5: variable 1 has 3 states, but only 2 tokens follow"},
		{"MAR\n2 2 0.5 0.5 3 0.1 0.2 0.7 0.0", `x:2: token 9: unexpected "0.0" after the marginal of the last of 2 variables`},
		{"MAR\n2 2 0.5 half 3 0.1 0.2 0.7", `x:2: token 4: want probability of state 1 of variable 0 (a number), got "half"`},
		{"MAR\n2 2 0.5 0.5\n", "x:2: token 4: unexpected end of the solution, want the cardinality of variable 1 of 2"},
		{"MAR\n0\n", "x:2: token 1: number of variables is 0, want >= 1"},
	}
	for _, tc := range mar {
		_, err := ReadMAR(strings.NewReader(tc.text), "x", cards)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
	pr := []struct{ text, want string }{
		{"MAR\n-1\n", `x:1: token 1: want task PR, got "MAR"`},
		{"PR\n", "x: no PR solution"},
		{"PR\nabc\n", `x:2: token 1: want log10 Z (a number), got "abc"`},
		{"PR\n-1 -2\n", `x:2: token 2: unexpected "-2" after the PR value`},
		{"PR\n-1 U L\n", `x:2: token 3: unexpected "L" after the PR value`},
	}
	for _, tc := range pr {
		_, err := ReadPR(strings.NewReader(tc.text), "x")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
	if _, err := ReadMARFile(filepath.Join(t.TempDir(), "missing.MAR"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing MAR: %v", err)
	}
	if _, err := ReadPRFile(filepath.Join(t.TempDir(), "missing.PR")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing PR: %v", err)
	}
}

// A failed write leaves no file, and a previous file survives.
func TestWriteMARFileAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.uai.MAR")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteMARFile(path, nil); err == nil {
		t.Fatal("no error for an empty model")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("previous file now %q", b)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v, want only the previous file", got)
	}
}

// Comments go at the top as "c" lines; the readers skip them and
// ReadUAIResultHeader returns them.
func TestUAIResultComments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mar, pr := filepath.Join(dir, "m.uai.MAR"), filepath.Join(dir, "m.uai.PR")
	marg := [][]float64{{0.25, 0.75}, {1}}
	comments := []string{"status: failed check: ln Z is NaN", "run: x"}
	if err := WriteMARFile(mar, marg, comments...); err != nil {
		t.Fatal(err)
	}
	if err := WritePRFile(pr, math.NaN(), comments...); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pr)
	if err != nil {
		t.Fatal(err)
	}
	if want := "c status: failed check: ln Z is NaN\nc run: x\nPR\nNaN\n"; string(b) != want {
		t.Errorf("PR file %q, want %q", b, want)
	}
	got, err := ReadMARFile(mar, []int{2, 1})
	if err != nil || !reflect.DeepEqual(got, marg) {
		t.Errorf("MAR read back %v, %v", got, err)
	}
	if z, err := ReadPRFile(pr); err != nil || !math.IsNaN(z) {
		t.Errorf("PR read back %v, %v", z, err)
	}
	for _, p := range []string{mar, pr} {
		if h, err := ReadUAIResultHeader(p); err != nil || !reflect.DeepEqual(h, comments) {
			t.Errorf("%s: header %q, %v; want %q", p, h, err, comments)
		}
	}
	if err := WritePR(&bytes.Buffer{}, 1, "two\nlines"); err == nil || !strings.Contains(err.Error(), "line break") {
		t.Errorf("comment with a line break: %v", err)
	}
}

func TestReadUAIResultHeader(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"MAR\n1 1 1\n": nil,
		"\xef\xbb\xbfc first\n\n  c  two \nPR\nc late\n1\n": {"first", "two"},
		"c only":   {"only"},
		"":         nil,
		"cx\nPR 1": {"x"},
	}
	dir := t.TempDir()
	for text, want := range tests {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadUAIResultHeader(p)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, %v; want %q", text, got, err, want)
		}
	}
	if _, err := ReadUAIResultHeader(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
