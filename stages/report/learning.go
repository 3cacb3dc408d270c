package report

// A learning section's comparisons: its gaps written, PCD at another
// method's wall time, and what its text reads of them.

import (
	"fmt"
	"slices"

	"github.com/renn-go/renn/core/metrics"
)

// learningSpec declares how a learning section compares methods.
type learningSpec struct {
	Reference string   // the method every gap is to (exact learning)
	Tol       float64  // how much larger a gap may be and count as at most another
	Tail      int      // epochs the longer part's tail means are over
	Long      string   // the part of the longer budget
	PCD       string   // the method compared at another's wall time
	WallRef   string   `toml:"wall_ref"`    // whose wall time it is compared at
	LongRef   string   `toml:"long_ref"`    // the longer budget's subject
	LongRival []string `toml:"long_rivals"` // the longer budget's rivals
}

// spread is the mean of gaps over seeds, with their range when there are
// several that differ at the tables' precision.
func spread(gaps []float64) string {
	out := fmtGap(metrics.Mean(gaps))
	if lo, hi := fmtGap(slices.Min(gaps)), fmtGap(slices.Max(gaps)); len(gaps) > 1 && lo != hi {
		out += fmt.Sprintf(" (%s to %s)", lo, hi)
	}
	return out
}

// WallPoint is PCD at another method's wall time on one setting.
type WallPoint struct {
	metrics.WallPoint
	PCD, Ref string
}

func (s *section) wallPoint(refPart, pcdPart string, g *group, ref string, tail int) *WallPoint {
	l := s.spec.Learning
	p, ok := metrics.AtWallTime(s.data.Runs(refPart, g, ref), s.data.Runs(pcdPart, g, l.PCD), s.data.Runs(refPart, g, l.Reference), tail)
	if !ok {
		return nil
	}
	return &WallPoint{WallPoint: p, PCD: l.PCD, Ref: ref}
}

// MinSecs and MaxSecs are the least and most of the seeds' wall times.
func (p *WallPoint) MinSecs() float64 { return slices.Min(p.SeedSecs) }
func (p *WallPoint) MaxSecs() float64 { return slices.Max(p.SeedSecs) }

// The learning rules, for a section's text.

func (c scope) Learning() learningSpec { return c.s.spec.Learning }

// HasRuns reports whether some learning run of part (of the method, if
// given) has finished.
func (c scope) HasRuns(part string, method ...string) bool {
	return slices.ContainsFunc(c.s.data.Obs, func(o *obs) bool {
		return o.Part == part && o.Run != nil && (len(method) == 0 || o.Method == method[0])
	})
}

// WallPoint is PCD at ref's wall time on the scope's setting, or nil.
func (c scope) WallPoint(refPart, pcdPart, ref string, tail int) *WallPoint {
	return c.s.wallPoint(refPart, pcdPart, c.b.set, ref, tail)
}
