package stageio

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/formats"
)

// UAIState is what the first line of a UAI result file says of its answer.
type UAIState int

const (
	// UAIConverged: the answer passed the shared check (infer.Verify) and
	// the method's convergence test.
	UAIConverged UAIState = iota
	// UAINotConverged: the answer passed the shared check, but the method
	// stopped (an iteration cap, a time budget, divergence) before its
	// convergence test passed.
	UAINotConverged
	// UAIFailed: the answer failed the shared check (the reason recorded in
	// estimates.parquet), or the file's own: a MAR file's marginals finite,
	// non-negative and normalised, a PR file's ln Z finite. Its numbers are
	// written as the method returned them, but they are no valid answer.
	UAIFailed
	// UAINoEstimate: the answer has no estimate of ln Z (NaN from a method
	// that makes none, a sampler): no PR file is written.
	UAINoEstimate
)

// Status lines, the first line of every result file after its "c ".
const (
	uaiStatusConverged    = "renn status: converged; the answer passed the shared check"
	uaiStatusNotConverged = "renn status: NOT CONVERGED: "
	uaiStatusFailed       = "renn status: FAILED CHECK: "
)

// UAIStatus is the state of one result file's answer and why.
type UAIStatus struct {
	State UAIState
	Why   string // the check's reason, or how the method stopped; "" when converged
}

// comment is the status line of a file.
func (s UAIStatus) comment() string {
	why := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\v' || r == '\f' {
			return ' '
		}
		return r
	}, s.Why)
	switch s.State {
	case UAIFailed:
		return uaiStatusFailed + why + "; the numbers below are what the method returned, not a valid answer"
	case UAINotConverged:
		return uaiStatusNotConverged + why + "; the answer passed the shared check"
	}
	return uaiStatusConverged
}

func (s UAIStatus) String() string {
	switch s.State {
	case UAIFailed:
		return "failed its check: " + s.Why
	case UAINotConverged:
		return "not converged: " + s.Why
	case UAINoEstimate:
		return "no estimate: " + s.Why
	}
	return "converged"
}

// UAIAnswer is one (model, method) answer as UAIOut.Outputs writes it.
type UAIAnswer struct {
	ModelID int32
	Model   string // the model's name
	Method  string
	MAR, PR UAIStatus
	// Certificate is what backs the answer, for methods that state it
	// (formats.EstimateRow.Certificate); "" otherwise.
	Certificate string
	// Base is the path of the files without ".MAR" and ".PR"
	// (Dir/method/name.uai); "" when none are written.
	Base string
}

// worst is the answer's state: that of the worse of its files.
func (a UAIAnswer) worst() UAIState {
	if a.PR.State == UAINoEstimate {
		return a.MAR.State
	}
	return max(a.MAR.State, a.PR.State)
}

// marStatus is the status of the MAR file of estimate e with marginals mg.
func marStatus(e formats.EstimateRow, mg [][]float64) UAIStatus {
	if e.Status == formats.StatusCheckFailed {
		return UAIStatus{UAIFailed, CheckFailure(e.Params)}
	}
	if why := marginalFlaw(mg); why != "" {
		return UAIStatus{UAIFailed, why}
	}
	return convergence(e)
}

// prStatus is the status of the PR file of estimate e.
func prStatus(e formats.EstimateRow) UAIStatus {
	switch {
	case e.Status == formats.StatusCheckFailed:
		return UAIStatus{UAIFailed, CheckFailure(e.Params)}
	case math.IsNaN(e.LogZ):
		// Passed the check with NaN: a method that makes no claim on ln Z.
		return UAIStatus{UAINoEstimate, "the method gives no estimate of ln Z"}
	case math.IsInf(e.LogZ, 0):
		return UAIStatus{UAIFailed, fmt.Sprintf("ln Z is %v", e.LogZ)}
	}
	return convergence(e)
}

// marginalFlaw says why a MAR file's marginals are no answer (an entry not
// finite or negative, a sum off 1 by more than infer.NormTol), or "".
func marginalFlaw(mg [][]float64) string {
	for v, p := range mg {
		s := 0.0
		for x, q := range p {
			if !(q >= 0) || math.IsInf(q, 1) {
				return fmt.Sprintf("variable %d: probability %v of state %d", v, q, x)
			}
			s += q
		}
		if math.Abs(s-1) > infer.NormTol {
			return fmt.Sprintf("variable %d: probabilities sum to %v", v, s)
		}
	}
	return ""
}

// convergence is the status of an answer that passed every check: its
// estimate's status (formats.EstimateRow.Status) said in words.
func convergence(e formats.EstimateRow) UAIStatus {
	after := fmt.Sprintf("the method stopped after %d iterations", e.Iterations)
	switch e.Status {
	case formats.StatusConverged:
		return UAIStatus{State: UAIConverged}
	case formats.StatusIterationLimit:
		return UAIStatus{UAINotConverged, after + " (its iteration cap) before its convergence test passed"}
	case formats.StatusTimeLimit:
		var p struct {
			Options map[string]any `json:"options"`
		}
		budget := "max_seconds"
		if json.Unmarshal([]byte(e.Params), &p) == nil && p.Options["max_seconds"] != nil {
			budget = fmt.Sprintf("max_seconds %v", p.Options["max_seconds"])
		}
		return UAIStatus{UAINotConverged, after + fmt.Sprintf(" before its convergence test passed (its time budget, %s, ran out)", budget)}
	case formats.StatusDiverged:
		return UAIStatus{UAINotConverged, after + ": the iteration diverged, the answer is its last sound iterate"}
	}
	return UAIStatus{UAINotConverged, after + " without passing its convergence test (its diagnostics say why)"}
}

// WriteUAISummary writes to w how many answers converged, and which failed
// their check or did not converge, with what was written for them (the UAI
// result files under dir, if any).
func WriteUAISummary(w io.Writer, dir string, answers []UAIAnswer) {
	var n [4]int
	var noPR []string // methods without ln Z
	for _, a := range answers {
		n[a.worst()]++
		if a.PR.State == UAINoEstimate && !slices.Contains(noPR, a.Method) {
			noPR = append(noPR, a.Method)
		}
	}
	files := "no UAI result files (no --uai-out)"
	if dir != "" {
		files = fmt.Sprintf("UAI result files in %s/<method>/<name>.uai.MAR|PR, each beginning with a line \"c renn status: ...\"", dir)
	}
	fmt.Fprintf(w, "%d answers: %d converged, %d not converged but passing the shared check, %d failed the shared check; %s\n",
		len(answers), n[UAIConverged], n[UAINotConverged], n[UAIFailed], files)
	groups := []struct {
		state UAIState
		head  string
	}{
		{UAIFailed, "failed the shared check (converged false; no valid answer; their files say \"FAILED CHECK\" and why):"},
		{UAINotConverged, "not converged (an iteration cap, a time budget or the method's own rule stopped it; the answers passed the shared check; their files say \"NOT CONVERGED\" and how it stopped):"},
	}
	for _, g := range groups {
		if n[g.state] == 0 {
			continue
		}
		fmt.Fprintln(w, g.head)
		for _, a := range answers {
			if a.worst() == g.state {
				fmt.Fprintf(w, "  model %d (%s) %s: %s\n", a.ModelID, a.Model, a.Method, a.describe())
			}
		}
	}
	if len(noPR) > 0 && dir != "" {
		fmt.Fprintf(w, "no .uai.PR files for %s: no estimate of ln Z\n", strings.Join(noPR, ", "))
	}
}

// describe says what is wrong with a and which files say so.
func (a UAIAnswer) describe() string {
	if a.MAR == a.PR || a.PR.State == UAINoEstimate {
		files := ".MAR, .PR"
		if a.PR.State == UAINoEstimate {
			files = ".MAR"
		}
		if a.Base == "" {
			return a.MAR.Why
		}
		return fmt.Sprintf("%s [%s%s]", a.MAR.Why, a.Base, files)
	}
	if a.Base == "" {
		return fmt.Sprintf("MAR %s; PR %s", a.MAR, a.PR)
	}
	return fmt.Sprintf("MAR %s [%s.MAR]; PR %s [%s.PR]", a.MAR, a.Base, a.PR, a.Base)
}
