package mrf

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestFactorFamilyCheck(t *testing.T) {
	for _, tt := range []struct {
		f    FactorFamily
		want string // "" for no error
	}{
		{FactorFamily{FamilyCSP, CSPWindow}, ""},
		{FactorFamily{FamilyCSP, CSPWindow - 1}, "out of range"},
		{FactorFamily{FamilyNoisyOR, 2}, ""},
		{FactorFamily{FamilyNoisyOR, 1}, "out of range"},
		{FactorFamily{FamilyPedigree, PedigreeWidth}, "out of range"},
		{FactorFamily{FamilyPedigree, MaxFactorFamilySize + 1}, "out of range"},
		{FactorFamily{FamilyLinkage, LinkageWidth + 1}, ""},
		{FactorFamily{FamilyLinkage, LinkageWidth}, "out of range"},
		{FactorFamily{"bn", 10}, "unknown factor family"},
	} {
		err := tt.f.Check()
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.f, err, tt.want)
		}
		if _, gerr := tt.f.Generate(1); (gerr == nil) != (err == nil) {
			t.Errorf("%+v: Generate error %v, Check error %v", tt.f, gerr, err)
		}
	}
}

// observed returns the trailing point-mass unary factors of m (what Observe
// appends) as variable -> state, and the number of factors before them.
func observed(m *Model) (map[int]int, int) {
	obs := map[int]int{}
	n := len(m.Factors)
	for n > 0 {
		f := m.Factors[n-1]
		s, finite := -1, 0
		for x, l := range f.LogTable {
			if !math.IsInf(l, -1) {
				s, finite = x, finite+1
			}
		}
		if len(f.Vars) != 1 || finite != 1 || f.LogTable[s] != 0 {
			break
		}
		obs[f.Vars[0]] = s
		n--
	}
	return obs, n
}

// Each family has the shape its documentation promises, is seeded, and
// its evidence has positive probability (the generators keep Z > 0: checked
// by exact inference in core/exact's tests of these families and by
// sample-model's).
func TestFactorFamilyShapes(t *testing.T) {
	for _, tt := range []struct {
		f                      FactorFamily
		vars, card, arity, obs int
		zeros                  bool // some entry of the model's own factors is zero
	}{
		{FactorFamily{FamilyCSP, 30}, 30, 4, 3, 0, true},
		{FactorFamily{FamilyNoisyOR, 30}, 45, 2, NoisyORParents + 1, 15, true},
		{FactorFamily{FamilyPedigree, 40}, 80, 3, 4, 28 + 8, true},
	} {
		t.Run(tt.f.Family, func(t *testing.T) {
			m, err := tt.f.Generate(7)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			again, _ := tt.f.Generate(7)
			if !reflect.DeepEqual(m, again) {
				t.Error("same seed, different models")
			}
			if other, _ := tt.f.Generate(8); reflect.DeepEqual(m, other) {
				t.Error("seeds 7 and 8 give the same model")
			}
			if m.NumVars() != tt.vars {
				t.Errorf("%d variables, want %d", m.NumVars(), tt.vars)
			}
			for i, c := range m.Cards {
				if c != tt.card {
					t.Fatalf("variable %d has %d states, want %d", i, c, tt.card)
				}
			}
			obs, own := observed(m)
			if len(obs) != tt.obs {
				t.Errorf("%d observed variables, want %d", len(obs), tt.obs)
			}
			arity, zeros := 0, false
			for _, f := range m.Factors[:own] {
				arity = max(arity, len(f.Vars))
				for _, l := range f.LogTable {
					zeros = zeros || math.IsInf(l, -1)
				}
			}
			if arity != tt.arity {
				t.Errorf("largest arity %d, want %d", arity, tt.arity)
			}
			if zeros != tt.zeros {
				t.Errorf("zero entries %v, want %v", zeros, tt.zeros)
			}
		})
	}
}

// Noisy-OR tables are conditional distributions of the child (the last
// variable) and are zero exactly where a strict finding has no active
// cause and is on.
func TestNoisyORTables(t *testing.T) {
	m, err := FactorFamily{FamilyNoisyOR, 20}.Generate(3)
	if err != nil {
		t.Fatal(err)
	}
	causes := 10
	for a, f := range m.Factors[:causes+20] {
		for x := 0; x < len(f.LogTable); x += 2 {
			if s := math.Exp(f.LogTable[x]) + math.Exp(f.LogTable[x+1]); math.Abs(s-1) > 1e-12 {
				t.Fatalf("factor %d row %d sums to %v", a, x/2, s)
			}
		}
		if a < causes {
			continue
		}
		finding := f.Vars[len(f.Vars)-1] - causes
		for x := 0; x < len(f.LogTable); x++ {
			zero := math.IsInf(f.LogTable[x], -1)
			want := finding%2 == 0 && x == 1 // all parents off, child on, no leak
			if zero != want {
				t.Errorf("finding %d entry %d zero %v, want %v", finding, x, zero, want)
			}
		}
	}
}

// The pedigree's arity-4 tables are Mendel's law times the penetrance: a
// distribution of (child, phenotype) for every pair of parents, zero for
// impossible children.
func TestPedigreeTables(t *testing.T) {
	m, err := FactorFamily{FamilyPedigree, 20}.Generate(5)
	if err != nil {
		t.Fatal(err)
	}
	for a, f := range m.Factors {
		if len(f.Vars) != 4 {
			continue
		}
		for pa := range 9 {
			s := 0.0
			for x := range 9 {
				s += math.Exp(f.LogTable[9*pa+x])
			}
			if math.Abs(s-1) > 1e-12 {
				t.Fatalf("factor %d parents %d: sums to %v", a, pa, s)
			}
		}
		// AA x AA cannot have an aa child; aa x aa cannot have an AA child.
		for ph := range 3 {
			if !math.IsInf(f.LogTable[0*27+0*9+2*3+ph], -1) || !math.IsInf(f.LogTable[2*27+2*9+0*3+ph], -1) {
				t.Fatalf("factor %d: Mendelian impossibility with positive potential", a)
			}
		}
	}
}
