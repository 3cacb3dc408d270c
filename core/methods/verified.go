package methods

import (
	"context"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/core/mrf"
)

// verified wraps a method so that every answer it returns passes through the
// shared check (infer.Verify): an answer that fails it is reported with
// status CheckFailed and the reason in Result.Check, followed by what had
// stopped the method when it had not converged ("(the method had stopped:
// time_limit)"); a certificate it stated (other than bounds, which do not
// rest on the answer) becomes infer.CertNone. Entry.New returns every
// method wrapped, so every stage gets the check.
type verified struct {
	infer.Method
	noLogZ bool // the method makes no claim on ln Z (LogZNone): not checked
}

// Infer runs the method and checks its answer.
func (c verified) Infer(ctx context.Context, m *mrf.Model) (*infer.Result, error) {
	res, err := c.Method.Infer(ctx, m)
	if err != nil {
		return nil, err
	}
	rb, _ := c.Method.(infer.RegionBeliefs)
	check := infer.Verify
	if c.noLogZ {
		check = infer.VerifyMarginals
	}
	if why := check(m, res, rb); why != "" {
		if res.Status != infer.Converged {
			// What had stopped the method stays on record with the reason.
			why += " (the method had stopped: " + res.Status.String() + ")"
		}
		res.Check, res.Status = why, infer.CheckFailed
		if res.Certificate != "" && res.Certificate != infer.CertBounds {
			// A failed answer is backed by nothing it claimed.
			res.Certificate = infer.CertNone
		}
	}
	return res, nil
}

// ClaimsLogZ reports whether the method makes a claim on ln Z
// (infer.LogZClaim): false for LogZNone entries.
func (c verified) ClaimsLogZ() bool { return !c.noLogZ }

// Reset forwards to the method's Reset (learning restarts warm-started
// methods through it), if it has one.
func (c verified) Reset() {
	if r, ok := c.Method.(interface{ Reset() }); ok {
		r.Reset()
	}
}

// Unwrap returns the method inside the check.
func (c verified) Unwrap() infer.Method { return c.Method }

// Verified wraps a method built outside the registry (RENN started from a
// family network) so that its answers pass the shared check, as the
// registry's do; its ln Z is an estimate.
func Verified(m infer.Method) infer.Method { return verified{Method: m} }
