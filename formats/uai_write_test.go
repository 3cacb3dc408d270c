package formats

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

// uaiTestImport reads path and its evidence file, if any, as sample-model
// uai does: the observations applied with Observe.
func uaiTestImport(t *testing.T, path string) *mrf.Model {
	t.Helper()
	m, _, err := ReadUAIFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + EvidenceSuffix); err == nil {
		cases, err := ReadEvidenceFile(path+EvidenceSuffix, m.Cards)
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) != 1 {
			t.Fatalf("%d evidence cases, want 1", len(cases))
		}
		for _, o := range cases[0] {
			if err := m.Observe(o.Var, o.State); err != nil {
				t.Fatal(err)
			}
		}
	}
	return m
}

// A model with evidence written as NAME.uai and NAME.uai.evid and read back
// is the same model: scopes exactly, log-potentials to a few ulps (WriteUAI
// prints the shortest form of every potential), zeros and the observations
// exactly; models without evidence get no evidence file.
func TestWriteUAIWithEvidenceRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		f    mrf.FactorFamily
		obs  bool
	}{
		{"csp", mrf.FactorFamily{Family: mrf.FamilyCSP, Size: 12}, false},
		{"noisy-or", mrf.FactorFamily{Family: mrf.FamilyNoisyOR, Size: 10}, true},
		{"pedigree", mrf.FactorFamily{Family: mrf.FamilyPedigree, Size: 12}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.f.Generate(3)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tt.name+".uai")
			n, err := WriteUAIWithEvidence(path, m)
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(path + EvidenceSuffix)
			if (n > 0) != tt.obs || (statErr == nil) != tt.obs {
				t.Fatalf("%d observations, evidence file: %v; want observations %v", n, statErr, tt.obs)
			}
			got := uaiTestImport(t, path)
			uaiTestSameModel(t, got, m, 1e-14)
			if m.NumVars() <= 16 {
				if zg, zw := uaiTestLogZ(got), uaiTestLogZ(m); !uaiTestClose(zg, zw, 1e-12) {
					t.Errorf("log Z %v after the round trip, want %v", zg, zw)
				}
			}
		})
	}
}

func TestSplitEvidence(t *testing.T) {
	t.Parallel()
	inf := math.Inf(-1)
	unary := func(v int, t ...float64) mrf.Factor { return mrf.Factor{Vars: []int{v}, LogTable: t} }
	m := &mrf.Model{Cards: []int{2, 3, 2}, Factors: []mrf.Factor{
		unary(0, 0, inf), // a point mass, but not trailing
		{Vars: []int{0, 1}, LogTable: []float64{0, 1, 2, 3, 4, 5}},
		unary(2, inf, 0),      // observation 2 = 1
		unary(1, inf, inf, 0), // observation 1 = 2
		unary(1, inf, inf, 0), // variable 1 again
	}}
	// The last factor observes variable 1; the one before it observes it
	// again, which ends the run: only the last factor is evidence.
	base, obs := SplitEvidence(m)
	if len(obs) != 1 || obs[0] != (Observation{Var: 1, State: 2}) || len(base.Factors) != 4 {
		t.Fatalf("observations %v, %d factors left; want [{1 2}] and 4", obs, len(base.Factors))
	}
	m.Factors = m.Factors[:4]
	base, obs = SplitEvidence(m)
	if len(obs) != 2 || obs[0] != (Observation{Var: 2, State: 1}) || obs[1] != (Observation{Var: 1, State: 2}) || len(base.Factors) != 2 {
		t.Fatalf("observations %v, %d factors left; want [{2 1} {1 2}] and 2", obs, len(base.Factors))
	}
	// A unary factor with a non-zero finite entry is part of the model.
	m.Factors = append(m.Factors, unary(0, 0.5, inf))
	if _, obs = SplitEvidence(m); len(obs) != 0 {
		t.Errorf("observations %v from a factor that is not a point mass of potential 1", obs)
	}
}

func TestWriteEvidence(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	obs := []Observation{{3, 1}, {0, 2}}
	if err := WriteEvidence(&b, obs); err != nil {
		t.Fatal(err)
	}
	if b.String() != "2 3 1 0 2\n" {
		t.Errorf("wrote %q", b.String())
	}
	cases, err := ReadEvidence(&b, "e.evid", []int{3, 2, 2, 2})
	if err != nil || len(cases) != 1 || len(cases[0]) != 2 || cases[0][0] != obs[0] || cases[0][1] != obs[1] {
		t.Errorf("read back %v, %v", cases, err)
	}
	for _, bad := range [][]Observation{{{-1, 0}}, {{0, -1}}, {{1, 0}, {1, 1}}} {
		if err := WriteEvidence(&b, bad); err == nil || !strings.Contains(err.Error(), "write evidence") {
			t.Errorf("%v: error %v", bad, err)
		}
	}
	b.Reset()
	if err := WriteEvidence(&b, nil); err != nil || b.String() != "0\n" {
		t.Errorf("no observations: %q, %v", b.String(), err)
	}
}
