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
	E := g.Energies(m)
	bel := randomBeliefs(mrf.NewRand(2), g, m)
	grad := g.NewBeliefs(m)
	for b.Loop() {
		g.FreeEnergyGrad(m, E, bel, grad)
	}
}
