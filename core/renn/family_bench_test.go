package renn

import (
	"context"
	"testing"

	"github.com/renn-go/renn/core/gbp"
)

// The family net's forward pass (5 sweeps, untrained) on grids, beside GBP
// to convergence: go test -bench 'FamilyForward|GBPGrid' ./core/renn/
func BenchmarkFamilyForward10(b *testing.B)   { benchFamilyForward(b, 10) }
func BenchmarkFamilyForward20(b *testing.B)   { benchFamilyForward(b, 20) }
func BenchmarkGBPGrid10(b *testing.B)         { benchGBP(b, 10) }
func BenchmarkFamilyRefineGBP10(b *testing.B) { benchFamilyRefineGBP(b, 10) }
func BenchmarkGBPGrid20(b *testing.B)         { benchGBP(b, 20) }

func benchFamilyForward(b *testing.B, L int) {
	m, g := benchModel(b, L)
	net, err := NewFamilyNet(16, 1)
	if err != nil {
		b.Fatal(err)
	}
	f := &Family{Net: net, Sweeps: 5}
	for b.Loop() {
		r, err := NewWithFamily(g, messageOptions(), f, true)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Infer(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
}

func benchGBP(b *testing.B, L int) {
	m, g := benchModel(b, L)
	for b.Loop() {
		gb, _ := gbp.New(g, gbp.DefaultOptions())
		if _, err := gb.Infer(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFamilyRefineGBP(b *testing.B, L int) {
	m, g := benchModel(b, L)
	net, err := NewFamilyNet(16, 1)
	if err != nil {
		b.Fatal(err)
	}
	f := &Family{Net: net, Sweeps: 5}
	for b.Loop() {
		r, err := NewFamilyInference(g, messageOptions(), f, RefineGBP, 2000)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Infer(context.Background(), m); err != nil {
			b.Fatal(err)
		}
	}
}
