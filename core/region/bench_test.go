package region

import (
	"testing"

	"github.com/renn-go/renn/core/mrf"
)

func BenchmarkBuildGrid20Faces(b *testing.B) {
	m := gridModel(b, 20, false, 1)
	for b.Loop() {
		if _, err := Build(m, "grid", Faces); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildK16Star(b *testing.B) {
	m := completeModel(16, 1)
	for b.Loop() {
		if _, err := Build(m, "complete", Star); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildRandom200Cycles(b *testing.B) {
	rng := mrf.NewRand(1)
	m := factorModel(rng, constCards(200, 2), nil, erdosRenyi(rng, 200, 3.0/199), nil)
	for b.Loop() {
		if _, err := Build(m, "uai", Cycles); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFreeEnergyGradGrid20Faces(b *testing.B) {
	m := gridModel(b, 20, false, 1)
	g, err := Build(m, "grid", Faces)
	if err != nil {
		b.Fatal(err)
	}
	bd := bind(b, g, m)
	E := energies(b, bd, m)
	bel := randomBeliefs(mrf.NewRand(2), bd)
	grad := bd.NewBeliefs()
	for b.Loop() {
		bd.FreeEnergyGrad(E, bel, grad)
	}
}

func BenchmarkEnergiesGrid20Faces(b *testing.B) {
	m := gridModel(b, 20, false, 1)
	g, err := Build(m, "grid", Faces)
	if err != nil {
		b.Fatal(err)
	}
	bd := bind(b, g, m)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bd.Energies(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVarMarginalsGrid20Faces(b *testing.B) {
	m := gridModel(b, 20, false, 1)
	g, err := Build(m, "grid", Faces)
	if err != nil {
		b.Fatal(err)
	}
	bd := bind(b, g, m)
	bel := randomBeliefs(mrf.NewRand(2), bd)
	b.ReportAllocs()
	for b.Loop() {
		bd.VarMarginals(bel)
	}
}
