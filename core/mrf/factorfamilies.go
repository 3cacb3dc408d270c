package mrf

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// This file holds benchmark families of general factor graphs, stand-ins for
// the kinds of model of the UAI 2014 inference competition that are not
// Ising models: soft constraint satisfaction problems with 4 states and
// ternary factors, noisy-OR Bayesian networks with evidence (Promedas-like),
// pedigrees with 3 genotypes, arity-4 factors and evidence, and
// genetic-linkage networks over several loci (linkage.go). Each is drawn
// from NewRand(seed) alone, so model k of a collection is regenerated from
// DeriveSeed(base, k). Evidence is applied with Model.Observe: the observed
// variables' point-mass factors come last, after the model's own factors,
// and every observation has positive probability (it is drawn from the
// model, or the model is built to allow it), so Z > 0.

// Factor families.
const (
	FamilyCSP      = "csp"      // soft CSP: K = 4 states, ternary factors, zero and near-zero entries
	FamilyNoisyOR  = "noisy-or" // two-layer noisy-OR network, findings partly observed
	FamilyPedigree = "pedigree" // genotypes (K = 3) over generations, arity-4 factors, evidence
)

// FactorFamilies lists the factor families in the order help texts give them.
var FactorFamilies = []string{FamilyCSP, FamilyNoisyOR, FamilyPedigree, FamilyLinkage}

// MaxFactorFamilySize bounds Size of every factor family: the models are
// meant for exact inference, and a family's cost in memory is a few hundred
// bytes per unit of size, so the bound is only against typing mistakes.
const MaxFactorFamilySize = 100_000

// Shapes of the factor families (see FactorFamily).
const (
	CSPStates      = 4    // states per CSP variable
	CSPWindow      = 5    // a CSP factor's variables lie within this many positions
	CSPZero        = 0.1  // probability of a zero CSP entry (never at the planted state)
	CSPTiny        = 0.1  // probability of a near-zero CSP entry, e^U(−12,−6)
	NoisyORParents = 4    // most parents of a finding (at least 2, or every cause if fewer)
	NoisyORLeak    = 0.05 // largest leak; half the findings have none
	NoisyORSeen    = 0.5  // fraction of findings observed
	PedigreeWidth  = 8    // individuals per generation
	PedigreeSeen   = 0.7  // fraction of phenotypes observed
	PedigreeTyped  = 0.2  // fraction of genotypes observed
)

// FactorFamily names a model of one of the factor families and its size.
//
//   - csp: Size variables of CSPStates states and 3·Size/2 ternary factors.
//     Factor a takes a first variable i uniformly and two more from
//     i+1..i+CSPWindow−1 (wrapping around), so the treewidth stays below
//     about 2·CSPWindow. A planted assignment x* is drawn first; each table
//     entry is then 0 with probability CSPZero (unless the entry agrees with
//     x*, so x* keeps positive probability and Z > 0), e^U(−12,−6) with
//     probability CSPTiny, and e^U(−1,1) otherwise. Size >= CSPWindow.
//   - noisy-or: Size binary findings and Size/2 (at least 1) binary causes.
//     Cause d has prior P(x_d = 1) ~ U(0.01, 0.2) (a unary factor). Finding f
//     has 2..NoisyORParents distinct causes (all of them if there are
//     fewer) and the CPT
//     P(x_f = 0 | parents) = (1 − leak_f) Π_{d on} q_fd, q_fd ~ U(0.05, 0.95),
//     with leak_f = 0 for every other finding (strict noisy-OR: a finding
//     without an active cause is off, an exact zero) and ~ U(0, NoisyORLeak)
//     otherwise; the factor is over (parents..., f), the child last as in a
//     UAI BAYES file. One state is drawn from the network by ancestral
//     sampling, and a fraction NoisyORSeen of the findings is observed at it.
//     Size >= 2.
//   - pedigree: Size individuals in generations of PedigreeWidth, each with
//     a genotype (0 = AA, 1 = Aa, 2 = aa) and a phenotype (0 unaffected,
//     1 mild, 2 severe). The first generation are founders, with
//     Hardy-Weinberg priors from an allele frequency p ~ U(0.2, 0.8) and a
//     factor P(phenotype | genotype). Everyone later has a father and a
//     mother drawn from the previous generation (distinct; half-siblings and
//     cousins close loops) and one arity-4 factor over (father, mother,
//     child genotype, child phenotype): Mendelian transmission, whose
//     impossible cases are zeros, times the penetrance. The penetrance table
//     is drawn per model, rows U(0.1, 1) normalised, with AA never severe and
//     aa never unaffected (zeros). One state is drawn by ancestral sampling;
//     a fraction PedigreeSeen of the phenotypes and PedigreeTyped of the
//     genotypes are observed at it. Variables: genotype of individual i is
//     2i, its phenotype 2i+1. Size >= PedigreeWidth + 1.
//   - linkage: genetic-linkage networks in the style of Fishelson and
//     Geiger's (the UAI competitions' pedigree and linkage sets): Size
//     individuals in generations of LinkageWidth, parents drawn from the
//     previous generation as in pedigree, each typed at LinkageLoci loci.
//     See linkage.go for the variables, factors and evidence.
//     Size >= LinkageWidth + 1; Size 24 gives 432 variables.
type FactorFamily struct {
	Family string
	Size   int
}

// Check reports whether f names a known family with a size in range.
func (f FactorFamily) Check() error {
	lo := 0
	switch f.Family {
	case FamilyCSP:
		lo = CSPWindow
	case FamilyNoisyOR:
		lo = 2
	case FamilyPedigree:
		lo = PedigreeWidth + 1
	case FamilyLinkage:
		lo = LinkageWidth + 1
	default:
		return fmt.Errorf("unknown factor family %q (want csp, noisy-or, pedigree or linkage)", f.Family)
	}
	if f.Size < lo || f.Size > MaxFactorFamilySize {
		return fmt.Errorf("%s size %d out of range [%d, %d]", f.Family, f.Size, lo, MaxFactorFamilySize)
	}
	return nil
}

// Generate draws a model of the family from NewRand(seed), evidence applied.
func (f FactorFamily) Generate(seed int64) (*Model, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	r := NewRand(seed)
	switch f.Family {
	case FamilyCSP:
		return softCSP(f.Size, r), nil
	case FamilyNoisyOR:
		return noisyOR(f.Size, r), nil
	case FamilyLinkage:
		return linkage(f.Size, r), nil
	default:
		return pedigree(f.Size, r), nil
	}
}

// softCSP draws the csp family's model on n variables.
func softCSP(n int, r *rand.Rand) *Model {
	m := &Model{Cards: make([]int, n)}
	planted := make([]int, n)
	for i := range m.Cards {
		m.Cards[i] = CSPStates
		planted[i] = r.IntN(CSPStates)
	}
	for range 3 * n / 2 {
		i := r.IntN(n)
		j := 1 + r.IntN(CSPWindow-1)
		k := 1 + r.IntN(CSPWindow-2)
		if k >= j {
			k++
		}
		vars := []int{i, (i + j) % n, (i + k) % n}
		size := CSPStates * CSPStates * CSPStates
		keep := (planted[vars[0]]*CSPStates+planted[vars[1]])*CSPStates + planted[vars[2]]
		t := make([]float64, size)
		for x := range t {
			switch u := r.Float64(); {
			case u < CSPZero && x != keep:
				t[x] = math.Inf(-1)
			case u < CSPZero+CSPTiny:
				t[x] = -6 - 6*r.Float64()
			default:
				t[x] = 2*r.Float64() - 1
			}
		}
		m.Factors = append(m.Factors, Factor{Vars: vars, LogTable: t})
	}
	return m
}

// noisyOR draws the noisy-or family's model with n findings.
func noisyOR(n int, r *rand.Rand) *Model {
	causes := max(1, n/2)
	m := &Model{Cards: make([]int, causes+n)}
	for i := range m.Cards {
		m.Cards[i] = 2
	}
	state := make([]int, causes+n)
	for d := range causes {
		p := 0.01 + 0.19*r.Float64()
		m.Factors = append(m.Factors, Factor{Vars: []int{d}, LogTable: []float64{math.Log1p(-p), math.Log(p)}})
		if r.Float64() < p {
			state[d] = 1
		}
	}
	for f := range n {
		child := causes + f
		lo := min(2, causes)
		k := lo + r.IntN(min(NoisyORParents, causes)-lo+1)
		parents := r.Perm(causes)[:k]
		sortInts(parents)
		q := make([]float64, k)
		for j := range q {
			q[j] = 0.05 + 0.9*r.Float64()
		}
		leak := 0.0
		if f%2 == 1 {
			leak = NoisyORLeak * r.Float64()
		}
		off := func(on func(j int) bool) float64 { // P(x_f = 0 | parents)
			p := 1 - leak
			for j := range q {
				if on(j) {
					p *= q[j]
				}
			}
			return p
		}
		t := make([]float64, 2<<k)
		for x := range 1 << k {
			// The first parent is the most significant bit, as in the
			// table's row-major layout.
			p0 := off(func(j int) bool { return x>>(k-1-j)&1 == 1 })
			t[2*x], t[2*x+1] = math.Log(p0), math.Log1p(-p0)
		}
		m.Factors = append(m.Factors, Factor{Vars: append(parents, child), LogTable: t})
		p0 := off(func(j int) bool { return state[parents[j]] == 1 })
		if r.Float64() >= p0 {
			state[child] = 1
		}
	}
	for _, f := range r.Perm(n)[:int(math.Round(NoisyORSeen*float64(n)))] {
		v := causes + f
		m.Observe(v, state[v]) // in range: cannot fail
	}
	return m
}

// mendel is P(child genotype | father, mother) for genotypes counting the a
// alleles (0 AA, 1 Aa, 2 aa): each parent passes a with probability g/2.
func mendel(father, mother, child int) float64 {
	pf, pm := float64(father)/2, float64(mother)/2
	switch child {
	case 0:
		return (1 - pf) * (1 - pm)
	case 1:
		return pf*(1-pm) + (1-pf)*pm
	}
	return pf * pm
}

// pedigree draws the pedigree family's model with n individuals.
func pedigree(n int, r *rand.Rand) *Model { return pedigreeWidth(n, PedigreeWidth, r) }

// pedigreeWidth is pedigree with generations of width individuals.
func pedigreeWidth(n, width int, r *rand.Rand) *Model {
	const K = 3
	m := &Model{Cards: make([]int, 2*n)}
	for i := range m.Cards {
		m.Cards[i] = K
	}
	allele := 0.2 + 0.6*r.Float64() // frequency of a
	prior := []float64{(1 - allele) * (1 - allele), 2 * allele * (1 - allele), allele * allele}
	var pen [K][K]float64 // pen[g][ph]
	for g := range K {
		sum := 0.0
		for ph := range K {
			if (g == 0 && ph == 2) || (g == 2 && ph == 0) {
				continue
			}
			pen[g][ph] = 0.1 + 0.9*r.Float64()
			sum += pen[g][ph]
		}
		for ph := range K {
			pen[g][ph] /= sum
		}
	}
	draw := func(p []float64) int {
		u := r.Float64()
		for s, x := range p {
			if u < x {
				return s
			}
			u -= x
		}
		return len(p) - 1
	}
	logs := func(p ...float64) []float64 {
		out := make([]float64, len(p))
		for i, x := range p {
			out[i] = math.Log(x) // log(0) = -Inf: a zero potential
		}
		return out
	}
	state := make([]int, 2*n)
	for i := range n {
		g, ph := 2*i, 2*i+1
		if i < width {
			m.Factors = append(m.Factors, Factor{Vars: []int{g}, LogTable: logs(prior...)})
			var t []float64
			for s := range K {
				t = append(t, logs(pen[s][:]...)...)
			}
			m.Factors = append(m.Factors, Factor{Vars: []int{g, ph}, LogTable: t})
			state[g] = draw(prior)
			state[ph] = draw(pen[state[g]][:])
			continue
		}
		gen := i / width
		lo := (gen - 1) * width
		father := lo + r.IntN(width)
		mother := lo + r.IntN(width-1)
		if mother >= father {
			mother++
		}
		t := make([]float64, 0, K*K*K*K)
		for f := range K {
			for mo := range K {
				for c := range K {
					for ph := range K {
						t = append(t, math.Log(mendel(f, mo, c)*pen[c][ph]))
					}
				}
			}
		}
		m.Factors = append(m.Factors, Factor{Vars: []int{2 * father, 2 * mother, g, ph}, LogTable: t})
		sf, sm := state[2*father], state[2*mother]
		state[g] = draw([]float64{mendel(sf, sm, 0), mendel(sf, sm, 1), mendel(sf, sm, 2)})
		state[ph] = draw(pen[state[g]][:])
	}
	seen := r.Perm(n)[:int(math.Round(PedigreeSeen*float64(n)))]
	typed := r.Perm(n)[:int(math.Round(PedigreeTyped*float64(n)))]
	sortInts(seen)
	sortInts(typed)
	for _, i := range typed {
		m.Observe(2*i, state[2*i])
	}
	for _, i := range seen {
		m.Observe(2*i+1, state[2*i+1])
	}
	return m
}
