package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// uaiFuzzSeeds adds every file under testdata/uai with one of exts to f's
// corpus.
func uaiFuzzSeeds(f *testing.F, exts ...string) {
	paths, err := filepath.Glob("testdata/uai/*")
	if err != nil {
		f.Fatal(err)
	}
	n := 0
	for _, p := range paths {
		for _, ext := range exts {
			if strings.HasSuffix(p, ext) {
				data, err := os.ReadFile(p)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(data)
				n++
			}
		}
	}
	if n == 0 {
		f.Fatal("no seed files in testdata/uai")
	}
}

// FuzzReadUAI checks that ReadUAI never panics, and that whatever it accepts
// is a valid model that survives WriteUAI and ReadUAI.
func FuzzReadUAI(f *testing.F) {
	uaiFuzzSeeds(f, ".uai")
	f.Add([]byte("MARKOV 1 2 1 1 0 2 5e-324 1.7976931348623157e308"))
	f.Add([]byte("BAYES 2 1 3 2 1 1 2 1 0 1 1 3 0.5 0.25 0.25"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, kind, err := ReadUAI(bytes.NewReader(data), "fuzz.uai")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.uai:") {
				t.Fatalf("error %q does not name the file and line", err)
			}
			return
		}
		if kind != "MARKOV" && kind != "BAYES" {
			t.Fatalf("kind = %q", kind)
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid model: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteUAI(&buf, m); err != nil {
			t.Fatalf("write: %v", err)
		}
		got, _, err := ReadUAI(&buf, "rewritten.uai")
		if err != nil {
			t.Fatalf("reading the rewritten model: %v", err)
		}
		uaiTestSameModel(t, got, m, 1e-12)
	})
}

// FuzzReadEvidence checks that ReadEvidence never panics and that accepted
// evidence respects the cardinalities.
func FuzzReadEvidence(f *testing.F) {
	uaiFuzzSeeds(f, ".evid")
	f.Add([]byte("2 1 0 1 0"))
	cards := []int{2, 3, 1, 4}
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, err := ReadEvidence(bytes.NewReader(data), "fuzz.evid", cards)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.evid:") {
				t.Fatalf("error %q does not name the file and line", err)
			}
			return
		}
		if len(cases) == 0 {
			t.Fatalf("no cases from %q", data) // "0" is one empty case
		}
		for k, obs := range cases {
			seen := map[int]bool{}
			for _, o := range obs {
				if o.Var < 0 || o.Var >= len(cards) || o.State < 0 || o.State >= cards[o.Var] || seen[o.Var] {
					t.Fatalf("case %d: bad observation %+v", k, o)
				}
				seen[o.Var] = true
			}
		}
	})
}
