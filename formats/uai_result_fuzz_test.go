package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzResultFile writes data to a fresh file and returns its path.
func fuzzResultFile(t *testing.T, data []byte, name string) string {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// resultFuzzSeeds adds data, its every prefix cut at a token boundary and a
// copy with one byte changed to f's corpus.
func resultFuzzSeeds(f *testing.F, data string) {
	f.Add([]byte(data))
	for i := range len(data) {
		if data[i] == ' ' || data[i] == '\n' {
			f.Add([]byte(data[:i]))
		}
	}
	bad := []byte(data)
	bad[len(bad)/2] = 'x'
	f.Add(bad)
}

// FuzzReadMAR checks that ReadMARFile never panics, names the file in its
// errors, and that whatever it accepts is a well-formed solution (the
// cardinalities asked for, when given) that survives WriteMAR and ReadMAR.
func FuzzReadMAR(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteMAR(&buf, [][]float64{{0.25, 0.75}, {0.5, 0.25, 0.25}}); err != nil {
		f.Fatal(err)
	}
	resultFuzzSeeds(f, buf.String())
	f.Add([]byte("MAR\n1\n2 2 0.1 0.9 3 0.2 0.3 0.5\n"))                            // the UAI 2010 form
	f.Add([]byte("MAR\n2 2 1 0 3 0 0 1\n-BEGIN-\n2 2 NaN Inf 3 -0 1e400 5e-324\n")) // two solutions
	cards := []int{2, 3}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzResultFile(t, data, "fuzz.uai.MAR")
		for _, cs := range [][]int{nil, cards} {
			marg, err := ReadMARFile(path, cs)
			if err != nil {
				if !strings.HasPrefix(err.Error(), path+":") {
					t.Fatalf("error %q does not name the file", err)
				}
				continue
			}
			if len(marg) == 0 || cs != nil && len(marg) != len(cs) {
				t.Fatalf("cards %v: %d variables", cs, len(marg))
			}
			for i, p := range marg {
				if len(p) == 0 || cs != nil && len(p) != cs[i] {
					t.Fatalf("cards %v: variable %d has %d states", cs, i, len(p))
				}
			}
			var out bytes.Buffer
			if err := WriteMAR(&out, marg); err != nil {
				t.Fatalf("write: %v", err)
			}
			back, err := ReadMAR(&out, "rewritten.MAR", cs)
			if err != nil {
				t.Fatalf("reading the rewritten solution: %v", err)
			}
			if !same(back, marg) {
				t.Fatalf("read back %v, first read %v", back, marg)
			}
		}
	})
}

// FuzzReadPR checks that ReadPRFile never panics, names the file in its
// errors, and that whatever it accepts survives WritePR and ReadPR.
func FuzzReadPR(f *testing.F) {
	var buf bytes.Buffer
	if err := WritePR(&buf, -12.375); err != nil {
		f.Fatal(err)
	}
	resultFuzzSeeds(f, buf.String())
	f.Add([]byte("PR\n1\n-3.5 L\n"))
	f.Add([]byte("PR\n1\n-BEGIN-\n-Inf\n-BEGIN-\nNaN U\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzResultFile(t, data, "fuzz.uai.PR")
		v, err := ReadPRFile(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WritePR(&out, v); err != nil {
			t.Fatalf("write: %v", err)
		}
		back, err := ReadPR(&out, "rewritten.PR")
		if err != nil {
			t.Fatalf("reading the rewritten solution: %v", err)
		}
		if !same(back, v) {
			t.Fatalf("read back %v, first read %v", back, v)
		}
	})
}
