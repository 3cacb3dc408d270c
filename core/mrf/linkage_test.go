package mrf

import (
	"math"
	"reflect"
	"testing"
)

// linkageVarCount is the number of variables of a linkage model of n
// individuals: 3 per founder and locus, 5 per other individual and locus.
func linkageVarCount(n int) int {
	return LinkageLoci * (3*LinkageWidth + 5*(n-LinkageWidth))
}

// TestLinkageShapes: the documented layout, cardinalities, arities and
// evidence, 1-state variables included, and one model per seed.
func TestLinkageShapes(t *testing.T) {
	for _, n := range []int{LinkageWidth + 1, 12, 24} {
		f := FactorFamily{FamilyLinkage, n}
		m, err := f.Generate(7)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		if again, _ := f.Generate(7); !reflect.DeepEqual(m, again) {
			t.Errorf("size %d: same seed, different models", n)
		}
		if other, _ := f.Generate(8); reflect.DeepEqual(m, other) {
			t.Errorf("size %d: seeds 7 and 8 give the same model", n)
		}
		if got, want := m.NumVars(), linkageVarCount(n); got != want {
			t.Fatalf("size %d: %d variables, want %d", n, got, want)
		}
		checkLinkageLayout(t, m, n)
		obs, own := observed(m)
		if want := int(math.Round(LinkageSeen * float64(n))); len(obs) != want {
			t.Errorf("size %d: %d observed variables, want %d", n, len(obs), want)
		}
		arity, zeros := 0, 0
		for _, f := range m.Factors[:own] {
			arity = max(arity, len(f.Vars))
			for _, l := range f.LogTable {
				if math.IsInf(l, -1) {
					zeros++
				}
			}
		}
		if arity != 4 || zeros == 0 {
			t.Errorf("size %d: largest arity %d, %d zero entries; want 4 and some", n, arity, zeros)
		}
	}
}

// checkLinkageLayout checks the documented numbering: per individual and
// locus gp, gm, ph and (not founders) sp, sm; alleles of at most
// LinkageMaxAlleles states, the disease locus's of 2, marker phenotypes of
// 1, selectors and affection statuses of 2; every observed variable an
// affection status; typed homozygous alleles of 1 state.
func checkLinkageLayout(t *testing.T, m *Model, n int) {
	t.Helper()
	obs, _ := observed(m)
	v, ones, fixedAlleles, seen := 0, 0, 0, 0
	for i := range n {
		for l := range LinkageLoci {
			gp, gm, ph := m.Cards[v], m.Cards[v+1], m.Cards[v+2]
			if gp > LinkageMaxAlleles || gm > LinkageMaxAlleles || (l == 0 && (gp != 2 || gm != 2)) {
				t.Fatalf("individual %d locus %d: alleles of %d and %d states", i, l, gp, gm)
			}
			if gp == 1 {
				fixedAlleles++
			}
			if want := map[bool]int{true: 2, false: 1}[l == 0]; ph != want {
				t.Fatalf("individual %d locus %d: phenotype of %d states, want %d", i, l, ph, want)
			}
			if _, ok := obs[v+2]; ok && l == 0 {
				seen++
			}
			v += 3
			if i >= LinkageWidth {
				if m.Cards[v] != 2 || m.Cards[v+1] != 2 {
					t.Fatalf("individual %d locus %d: selectors of %d and %d states", i, l, m.Cards[v], m.Cards[v+1])
				}
				v += 2
			}
		}
	}
	if seen != len(obs) {
		t.Errorf("%d observed variables, %d of them affection statuses", len(obs), seen)
	}
	for _, c := range m.Cards {
		if c == 1 {
			ones++
		}
	}
	if markers := n * (LinkageLoci - 1); ones < markers || fixedAlleles == 0 && n >= 12 {
		t.Errorf("%d variables of 1 state (%d fixed allele pairs), want at least the %d marker phenotypes and some alleles", ones, fixedAlleles, markers)
	}
}

// TestLinkageTables: every factor is a conditional distribution of its
// last variable (potentials 0/1 for the deterministic ones), so the model
// is a Bayesian network restricted by its evidence; the transmission
// factors allow at most one allele of the child per parents and selector.
func TestLinkageTables(t *testing.T) {
	m, err := FactorFamily{FamilyLinkage, 14}.Generate(3)
	if err != nil {
		t.Fatal(err)
	}
	_, own := observed(m)
	transmissions := 0
	for a, f := range m.Factors[:own] {
		last := m.Cards[f.Vars[len(f.Vars)-1]]
		deterministic := true
		for row := 0; row < len(f.LogTable); row += last {
			s, ones := 0.0, 0
			for _, l := range f.LogTable[row : row+last] {
				p := math.Exp(l)
				s += p
				if p == 1 {
					ones++
				} else if p != 0 {
					deterministic = false
				}
			}
			if s > 1+1e-12 {
				t.Fatalf("factor %d row %d sums to %v", a, row/last, s)
			}
			if len(f.Vars) == 4 && ones > 1 {
				t.Fatalf("transmission factor %d row %d allows %d alleles", a, row/last, ones)
			}
		}
		if len(f.Vars) == 4 {
			transmissions++
			if !deterministic || m.Cards[f.Vars[2]] != 2 {
				t.Fatalf("factor %d over %v: not a deterministic transmission", a, f.Vars)
			}
		}
	}
	if want := 2 * LinkageLoci * (14 - LinkageWidth); transmissions != want {
		t.Errorf("%d transmission factors, want %d", transmissions, want)
	}
}
