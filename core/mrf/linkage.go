package mrf

import (
	"math"
	"math/rand/v2"
)

// FamilyLinkage names genetic-linkage models in the style of the Bayesian
// networks of Fishelson and Geiger (superlink), from which the pedigree and
// linkage sets of the UAI inference competitions were made: several loci per
// individual, alleles of up to LinkageMaxAlleles states, binary selectors,
// deterministic arity-4 transmission factors, many variables of one state
// and evidence on phenotypes. Their treewidth grows fast with Size: with
// core/exact's default options the best order found needs tables of
// 2^8.6-2^12 entries at Size 12, 2^11-2^18 at 16, 2^23-2^38 at 20 and
// 2^25.6-2^45 at 24 (432 variables; seeds DeriveSeed(1, 0..4)).
//
// The model of Size n has n individuals; the first LinkageWidth are
// founders, and individual i of every later generation g has a father and
// a mother drawn from generation g-1 (distinct, as in pedigree). At each
// locus l (0 is the disease locus, with 2 alleles of which the second has
// frequency q ~ U(0.05, 0.3); markers 1.. have 3..5 alleles of frequencies
// proportional to U(0.2, 1)) individual i has, numbered in this order,
// individual by individual and locus by locus:
//
//   - gp, gm: its paternal and maternal allele. A founder's alleles have the
//     allele frequencies as priors (unary factors).
//   - ph: its phenotype. At the disease locus the affection status (2
//     states) with the factor (gp, gm, ph) P(affected | k disease alleles) =
//     f_k, f_0 ~ U(0, 0.05), f_1 ~ U(f_0, 1), f_2 ~ U(f_1, 1). At a marker a
//     variable of 1 state: for a typed individual the factor (gp, gm, ph) is
//     1 where the unordered pair {gp, gm} is the typed genotype and 0
//     elsewhere; an untyped individual's marker phenotype has no factor.
//   - sp, sm (not founders): the selectors, 0 when the father (mother)
//     passed on his (her) paternal allele. At locus 0 a uniform unary
//     factor; at locus l > 0 the factor (selector at l-1, selector at l),
//     1 - θ_l on the diagonal and θ_l off it, θ_l ~ U(0.01, 0.3) the
//     recombination fraction between loci l-1 and l. Transmission is the
//     deterministic arity-4 factor (parent's gp, parent's gm, selector, own
//     allele), 1 where the own allele is the selected one and 0 elsewhere.
//
// One joint state is drawn by ancestral sampling. A fraction LinkageTyped
// of the individuals is typed at every marker with its sampled genotype, and
// a typed individual's alleles there take only the typed genotype's allele
// values (genotype elimination, as superlink does): both alleles have 1
// state when the genotype is homozygous, 2 when not, so many variables have
// 1 state. The affection status of a fraction LinkageSeen of the
// individuals is observed at the sampled state (Model.Observe). Every
// observation is the sampled state's, so Z > 0.
const FamilyLinkage = "linkage"

// Shapes of the linkage family (see FactorFamily).
const (
	LinkageLoci       = 4   // loci per individual: locus 0 is the disease locus, the rest are markers
	LinkageWidth      = 6   // individuals per generation; the first generation are the founders
	LinkageMinAlleles = 3   // fewest alleles of a marker
	LinkageMaxAlleles = 5   // most alleles of a marker
	LinkageTyped      = 0.6 // fraction of individuals typed at every marker
	LinkageSeen       = 0.7 // fraction of affection statuses observed
)

// linkageVars are the variables of one individual at one locus; sp and sm
// (the selectors) are -1 for founders.
type linkageVars struct{ gp, gm, ph, sp, sm int }

// linkageDraw is everything drawn before the model is built: parameters,
// pedigree, one joint state and which values are observed.
type linkageDraw struct {
	n, founders int
	alleles     [LinkageLoci]int
	freq        [LinkageLoci][]float64
	recomb      [LinkageLoci]float64 // recombination fraction between locus l-1 and l
	pen         [3]float64           // P(affected | number of disease alleles)
	father      []int                // -1 for founders
	mother      []int
	// State of individual i at locus l: paternal and maternal allele,
	// selectors (0: the parent's paternal allele passed on) and, at the
	// disease locus, the affection status.
	gp, gm, sp, sm [][LinkageLoci]int
	affected       []int
	typed, seen    []bool
}

// linkage draws the linkage family's model with n individuals.
func linkage(n int, r *rand.Rand) *Model {
	d := drawLinkage(n, r)
	return d.build()
}

// drawLinkage draws the parameters, the pedigree, a joint state by forward
// sampling and the observed individuals.
func drawLinkage(n int, r *rand.Rand) *linkageDraw {
	d := &linkageDraw{n: n, founders: LinkageWidth}
	d.alleles[0] = 2
	q := 0.05 + 0.25*r.Float64() // disease allele frequency
	d.freq[0] = []float64{1 - q, q}
	for l := 1; l < LinkageLoci; l++ {
		d.alleles[l] = LinkageMinAlleles + r.IntN(LinkageMaxAlleles-LinkageMinAlleles+1)
		w := make([]float64, d.alleles[l])
		sum := 0.0
		for a := range w {
			w[a] = 0.2 + 0.8*r.Float64()
			sum += w[a]
		}
		for a := range w {
			w[a] /= sum
		}
		d.freq[l] = w
		d.recomb[l] = 0.01 + 0.29*r.Float64()
	}
	d.pen[0] = 0.05 * r.Float64()
	d.pen[1] = d.pen[0] + (1-d.pen[0])*r.Float64()
	d.pen[2] = d.pen[1] + (1-d.pen[1])*r.Float64()
	d.father, d.mother = make([]int, n), make([]int, n)
	for i := range n {
		d.father[i], d.mother[i] = -1, -1
		if i >= d.founders {
			lo := (i/LinkageWidth - 1) * LinkageWidth
			d.father[i] = lo + r.IntN(LinkageWidth)
			d.mother[i] = lo + r.IntN(LinkageWidth-1)
			if d.mother[i] >= d.father[i] {
				d.mother[i]++
			}
		}
	}
	d.sample(r)
	d.typed, d.seen = make([]bool, n), make([]bool, n)
	for _, i := range r.Perm(n)[:int(math.Round(LinkageTyped*float64(n)))] {
		d.typed[i] = true
	}
	for _, i := range r.Perm(n)[:int(math.Round(LinkageSeen*float64(n)))] {
		d.seen[i] = true
	}
	return d
}

// sample draws one joint state from the model by ancestral sampling.
func (d *linkageDraw) sample(r *rand.Rand) {
	n := d.n
	d.gp, d.gm = make([][LinkageLoci]int, n), make([][LinkageLoci]int, n)
	d.sp, d.sm = make([][LinkageLoci]int, n), make([][LinkageLoci]int, n)
	d.affected = make([]int, n)
	selector := func(prev []int, l int) int {
		if l == 0 {
			return r.IntN(2)
		}
		if r.Float64() < d.recomb[l] {
			return 1 - prev[l-1]
		}
		return prev[l-1]
	}
	for i := range n {
		for l := range LinkageLoci {
			if d.father[i] < 0 {
				d.gp[i][l] = drawFrom(r, d.freq[l])
				d.gm[i][l] = drawFrom(r, d.freq[l])
				continue
			}
			d.sp[i][l] = selector(d.sp[i][:], l)
			d.sm[i][l] = selector(d.sm[i][:], l)
			d.gp[i][l] = d.passed(d.father[i], l, d.sp[i][l])
			d.gm[i][l] = d.passed(d.mother[i], l, d.sm[i][l])
		}
		if r.Float64() < d.pen[d.gp[i][0]+d.gm[i][0]] {
			d.affected[i] = 1
		}
	}
}

// passed is the allele parent passes on at locus l when its selector is s.
func (d *linkageDraw) passed(parent, l, s int) int {
	if s == 0 {
		return d.gp[parent][l]
	}
	return d.gm[parent][l]
}

// drawFrom draws an index from the distribution p.
func drawFrom(r *rand.Rand, p []float64) int {
	u := r.Float64()
	for s, x := range p {
		if u < x {
			return s
		}
		u -= x
	}
	return len(p) - 1
}

// linkageModel is the model under construction: every variable's domain
// (the allele values, or states, it may take) beside its cardinality.
type linkageModel struct {
	*Model
	dom  [][]int
	vars [][LinkageLoci]linkageVars
}

// newVar adds a variable with the given domain and returns its index.
func (b *linkageModel) newVar(dom []int) int {
	b.dom = append(b.dom, dom)
	b.Cards = append(b.Cards, len(dom))
	return len(b.Cards) - 1
}

// add appends a factor over vars whose potential at the domain values x is
// p(x); zeros become -Inf.
func (b *linkageModel) add(vars []int, p func(x []int) float64) {
	size := 1
	for _, v := range vars {
		size *= b.Cards[v]
	}
	t := make([]float64, size)
	x := make([]int, len(vars))
	for k := range t {
		for q, rest := len(vars)-1, k; q >= 0; q-- {
			c := b.Cards[vars[q]]
			x[q] = b.dom[vars[q]][rest%c]
			rest /= c
		}
		t[k] = math.Log(p(x))
	}
	b.Factors = append(b.Factors, Factor{Vars: append([]int(nil), vars...), LogTable: t})
}

func states(n int) []int {
	out := make([]int, n)
	for k := range out {
		out[k] = k
	}
	return out
}

// alleleDomain is the domain of an allele of individual i at locus l: the
// typed genotype's alleles at a typed marker (one value if homozygous),
// every allele otherwise.
func (d *linkageDraw) alleleDomain(i, l int) []int {
	if l == 0 || !d.typed[i] {
		return states(d.alleles[l])
	}
	a, b := min(d.gp[i][l], d.gm[i][l]), max(d.gp[i][l], d.gm[i][l])
	if a == b {
		return []int{a}
	}
	return []int{a, b}
}

// build turns the draw into the model, evidence applied.
func (d *linkageDraw) build() *Model {
	b := &linkageModel{Model: &Model{}}
	b.vars = make([][LinkageLoci]linkageVars, d.n)
	for i := range d.n {
		for l := range LinkageLoci {
			d.addLocus(b, i, l)
		}
	}
	for i := range d.n {
		if d.seen[i] {
			b.Observe(b.vars[i][0].ph, d.affected[i]) // in range: cannot fail
		}
	}
	return b.Model
}

// addLocus adds individual i's variables and factors at locus l.
func (d *linkageDraw) addLocus(b *linkageModel, i, l int) {
	v := linkageVars{sp: -1, sm: -1}
	v.gp = b.newVar(d.alleleDomain(i, l))
	v.gm = b.newVar(d.alleleDomain(i, l))
	if l == 0 {
		v.ph = b.newVar(states(2))
	} else {
		v.ph = b.newVar([]int{0}) // the marker phenotype, fixed
	}
	if d.father[i] >= 0 {
		v.sp = b.newVar(states(2))
		v.sm = b.newVar(states(2))
	}
	b.vars[i][l] = v
	if d.father[i] < 0 {
		prior := func(x []int) float64 { return d.freq[l][x[0]] }
		b.add([]int{v.gp}, prior)
		b.add([]int{v.gm}, prior)
	} else {
		d.addSelector(b, v.sp, i, l, func(w linkageVars) int { return w.sp })
		d.addSelector(b, v.sm, i, l, func(w linkageVars) int { return w.sm })
		transmit := func(x []int) float64 { // (parent's gp, gm, selector, child allele)
			if x[3] == x[x[2]] {
				return 1
			}
			return 0
		}
		f, m := b.vars[d.father[i]][l], b.vars[d.mother[i]][l]
		b.add([]int{f.gp, f.gm, v.sp, v.gp}, transmit)
		b.add([]int{m.gp, m.gm, v.sm, v.gm}, transmit)
	}
	switch {
	case l == 0:
		b.add([]int{v.gp, v.gm, v.ph}, func(x []int) float64 {
			p := d.pen[x[0]+x[1]]
			if x[2] == 0 {
				return 1 - p
			}
			return p
		})
	case d.typed[i]:
		// The typed genotype is unordered: the two alleles, either way round.
		lo, hi := min(d.gp[i][l], d.gm[i][l]), max(d.gp[i][l], d.gm[i][l])
		b.add([]int{v.gp, v.gm, v.ph}, func(x []int) float64 {
			if min(x[0], x[1]) == lo && max(x[0], x[1]) == hi {
				return 1
			}
			return 0
		})
	}
}

// addSelector adds the factor of selector s of individual i at locus l:
// uniform at the first locus, a recombination with the previous locus's
// selector (sel picks which) otherwise.
func (d *linkageDraw) addSelector(b *linkageModel, s, i, l int, sel func(linkageVars) int) {
	if l == 0 {
		b.add([]int{s}, func([]int) float64 { return 0.5 })
		return
	}
	theta := d.recomb[l]
	b.add([]int{sel(b.vars[i][l-1]), s}, func(x []int) float64 {
		if x[0] == x[1] {
			return 1 - theta
		}
		return theta
	})
}
