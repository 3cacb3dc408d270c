package mrf

import (
	"math"
	"testing"
)

func TestShapeOf(t *testing.T) {
	inf := math.Inf(-1)
	m := &Model{Cards: []int{3, 2, 3}, Factors: []Factor{
		{Vars: []int{0, 1}, LogTable: []float64{0, 1, inf, 0, 0, 0}},
		{Vars: []int{0, 1, 2}, LogTable: make([]float64, 18)},
		{Vars: []int{1}, LogTable: []float64{inf, 1}},      // one state, but not 1: a factor of the model
		{Vars: []int{2}, LogTable: []float64{inf, 0, inf}}, // evidence
	}}
	got := ShapeOf(m)
	want := Shape{MinCard: 2, MaxCard: 3, Factors: 3, MaxArity: 3, Zeros: 2, Observed: 1}
	if got != want {
		t.Errorf("ShapeOf = %+v, want %+v", got, want)
	}
}
