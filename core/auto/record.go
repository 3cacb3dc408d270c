package auto

import (
	"encoding/json"
	"math"
	"strconv"
)

// Record is auto's account of one call, written to the estimates' params
// (infer.Result.Record): what it ran, with which time limit, for how long,
// what each run gave, and why the answer was chosen.
type Record struct {
	Budget float64 `json:"budget_seconds"`
	// Chosen names the run whose answer auto returns ("exact",
	// "gbp@blocks3", "pt", ...); Reason says why (the rule in the package
	// comment).
	Chosen      string `json:"chosen"`
	Reason      string `json:"reason"`
	Certificate string `json:"certificate"`
	// Exact says whether exact inference ran, and why (or why not).
	Exact ExactDecision `json:"exact"`
	Runs  []Run         `json:"runs"`
	// Bounds are mean field's lower and TRW's upper bound on ln Z, when
	// their runs gave them.
	Bounds *Bounds `json:"bounds,omitempty"`
	// Excess is Σ (V - P)² / Σ se² over the unobserved variables' states,
	// V the best converged variational answer, P parallel tempering's and se
	// its standard errors, when both were there to compare (the package
	// comment, step 3).
	Excess *Float `json:"excess,omitempty"`
	// LogZFrom names the run ln Z came from when it is not the chosen one's
	// (whose ln Z was not finite), and LogZClamped is set when ln Z was
	// moved into the bounds.
	LogZFrom    string `json:"log_z_from,omitempty"`
	LogZClamped bool   `json:"log_z_clamped,omitempty"`
}

// ExactDecision records the exact-inference step.
type ExactDecision struct {
	// Estimate is the plan's estimated run time in seconds (NaN when there
	// is no plan), Left the budget left when it was weighed.
	Estimate Float  `json:"estimated_seconds"`
	Left     Float  `json:"left_seconds"`
	Ran      bool   `json:"ran"`
	Why      string `json:"why"`
}

// Run is one method run of a call.
type Run struct {
	Method    string  `json:"method"` // "gbp@faces" for GBP on faces
	Limit     float64 `json:"limit_seconds"`
	Seconds   float64 `json:"seconds"`
	Converged bool    `json:"converged"`
	Check     string  `json:"check,omitempty"` // the shared check's reason, if it failed
	LogZ      Float   `json:"log_z"`
	Error     string  `json:"error,omitempty"`
}

// Bounds are certified bounds on ln Z.
type Bounds struct {
	Lower Float `json:"lower"` // mean field's ln Z
	Upper Float `json:"upper"` // TRW's ln Z
	Width Float `json:"width"`
}

// Float is a number that encodes as JSON even when it is not finite (as
// the string "NaN", "+Inf" or "-Inf").
type Float float64

// MarshalJSON writes f as a number, or as a string when it is not finite.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return json.Marshal(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return json.Marshal(x)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Float) UnmarshalJSON(b []byte) error {
	var x float64
	if err := json.Unmarshal(b, &x); err == nil {
		*f = Float(x)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	x, err := strconv.ParseFloat(s, 64)
	*f = Float(x)
	return err
}
