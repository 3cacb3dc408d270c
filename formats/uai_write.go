package formats

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/renn-go/renn/core/mrf"
)

// This file writes UAI evidence files and splits a model's evidence from
// its factors, so that a model with evidence can be exported as the pair
// NAME.uai and NAME.uai.evid that ReadUAI, ReadEvidence and Model.Observe
// turn back into the same model. WriteUAI (uai.go) writes the model.

// EvidenceSuffix is appended to a model file's name to name its evidence
// file, as in the UAI competitions: grid.uai and grid.uai.evid.
const EvidenceSuffix = ".evid"

// SplitEvidence returns m without its trailing observations and the
// observations, in factor order: the longest run of unary factors at the
// end of m.Factors that are point masses, log-potential exactly 0 at one
// state and -Inf at every other, which is what Model.Observe appends. The
// model without them, with the observations applied by Observe in the order
// returned, is m again, factor for factor. A variable observed twice (two
// such factors on it) stops the run, since an evidence file names a
// variable once; the earlier factor stays in the model. m is not changed;
// the returned model shares its factors.
func SplitEvidence(m *mrf.Model) (*mrf.Model, []Observation) {
	n := len(m.Factors)
	seen := map[int]bool{}
	for n > 0 {
		f := m.Factors[n-1]
		_, ok := pointMass(f.LogTable)
		if len(f.Vars) != 1 || !ok || seen[f.Vars[0]] {
			break
		}
		seen[f.Vars[0]] = true
		n--
	}
	obs := make([]Observation, 0, len(m.Factors)-n)
	for _, f := range m.Factors[n:] {
		s, _ := pointMass(f.LogTable)
		obs = append(obs, Observation{Var: f.Vars[0], State: s})
	}
	return &mrf.Model{Cards: m.Cards, Factors: m.Factors[:n]}, obs
}

// pointMass reports the state of a log table that is 0 at one state and
// -Inf at the others.
func pointMass(t []float64) (int, bool) {
	s := -1
	for x, l := range t {
		switch {
		case l == 0 && s < 0:
			s = x
		case !math.IsInf(l, -1):
			return 0, false
		}
	}
	return s, s >= 0
}

// WriteEvidence writes one evidence case in the UAI 2014 form that
// ReadEvidence reads: the number of observations, then each variable and
// its state, on one line. Variables and states must be >= 0 and a variable
// may appear only once.
func WriteEvidence(w io.Writer, obs []Observation) error {
	seen := make(map[int]bool, len(obs))
	buf := strconv.AppendInt(nil, int64(len(obs)), 10)
	for i, o := range obs {
		if o.Var < 0 || o.State < 0 {
			return fmt.Errorf("write evidence: observation %d: variable %d state %d, want both >= 0", i, o.Var, o.State)
		}
		if seen[o.Var] {
			return fmt.Errorf("write evidence: variable %d observed twice", o.Var)
		}
		seen[o.Var] = true
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(o.Var), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(o.State), 10)
	}
	buf = append(buf, '\n')
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write evidence: %w", err)
	}
	return nil
}

// WriteEvidenceFile writes obs to path (see WriteEvidence), replacing the
// file whole or leaving it as it was.
func WriteEvidenceFile(path string, obs []Observation) error {
	if err := writeAtomic(path, func(w io.Writer) error { return WriteEvidence(w, obs) }); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteUAIWithEvidence writes m to path as a UAI MARKOV file without its
// trailing observations (SplitEvidence), and the observations, if there are
// any, to path+EvidenceSuffix. It returns the number of observations.
func WriteUAIWithEvidence(path string, m *mrf.Model) (int, error) {
	base, obs := SplitEvidence(m)
	if err := WriteUAIFile(path, base); err != nil {
		return 0, err
	}
	if len(obs) == 0 {
		return 0, nil
	}
	return len(obs), WriteEvidenceFile(path+EvidenceSuffix, obs)
}
