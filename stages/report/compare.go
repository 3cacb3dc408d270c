package report

// The verdicts of the comparisons of two methods' answers the readers
// record (outputs.CompareSpec: "fixed_points"), written on every model.

import (
	"fmt"

	"github.com/renn-go/renn/stages/stageio/outputs"
)

// verdicts writes, on every model a fixed_points comparison compared, its
// verdict (fact <name>_verdict).
func (s *section) verdicts() {
	for _, c := range s.spec.Compare {
		for _, mo := range s.data.Find(nil, "", "") {
			n := func(name string) float64 { return mo.Num[c.Name+"_"+name] }
			if _, ok := mo.Num[c.Name+"_conv_a"]; ok {
				mo.Text[c.Name+"_verdict"] = verdict(c, n("conv_a") == 1, n("conv_b") == 1, n("distance"), n("f_a"), n("f_b"), n("res_a"), n("res_b"))
			}
		}
	}
}

func verdict(c outputs.CompareSpec, convA, convB bool, dist, fA, fB, resA, resB float64) string {
	switch {
	case !convA && !convB:
		return "neither converged"
	case !convA:
		return c.A + " did not converge"
	case !convB:
		return c.B + " did not converge"
	case dist <= c.Same:
		return fmt.Sprintf("same fixed point (beliefs within %s)", smallE(dist))
	}
	what := "two stationary points of the Bethe F"
	if !(resA <= c.Stationary) || !(resB <= c.Stationary) {
		what = "two different converged points, not both stationary"
	}
	if fB > fA {
		return fmt.Sprintf("%s: %s's F higher by %s", what, c.B, formatNumber("", fB-fA))
	}
	return fmt.Sprintf("%s: %s's F higher by %s", what, c.A, formatNumber("", fA-fB))
}
