// Package infer defines the one interface every approximate inference method
// implements (mean field, loopy BP, damped BP, GBP, Inference Net, RENN, and the
// exact solver when wrapped), the one result type they all return, and the
// factor-graph and log-space helpers the message-passing methods share.
//
// Stages, scoring and learning reach every method through Method, so adding a
// method touches one place. The options every iterative method shares
// (Iteration: tol, max_iter, max_seconds) are declared here once, and so is
// the Status that says why a call ended. Region-based methods are constructed with their
// region graph, so Infer needs only the model.
package infer

import (
	"context"
	"fmt"
	"strings"

	"github.com/renn-go/renn/core/mrf"
)

// Result is what a method returns for one model.
type Result struct {
	// Marginals are the estimated marginals of every variable and every
	// factor, each summing to one, in the layout mrf.Marginals documents
	// (a factor's marginal is laid out exactly like its LogTable).
	Marginals mrf.Marginals
	// LogZ is the method's estimate of ln Z; -FreeEnergy for free-energy
	// methods.
	LogZ       float64
	FreeEnergy float64
	// Iterations counts the sweeps (or optimisation steps) this call ran.
	Iterations int
	// Status says why the call ended: Converged only when the method's
	// convergence test passed and, for the registry's methods, the answer
	// passed the shared check (Verify) after the call; see Converged.
	Status Status
	// Check is the reason the answer failed Verify when Status is
	// CheckFailed, else "".
	Check string
	// Diagnostics holds the method's own extras, e.g. "max_delta".
	Diagnostics map[string]float64
	// Certificate says what backs the answer, for a method that states it
	// (auto): one of the Cert constants; "" when the method states none.
	Certificate string
	// Record is the method's own account of the call where numbers do not
	// say it (auto: what ran, for how long, and why its answer was chosen),
	// a value that encodes as JSON; stages write it beside Diagnostics. Nil
	// for most methods.
	Record any
}

// Certificates: what backs an answer (Result.Certificate), strongest first.
const (
	// CertExact: exact inference.
	CertExact = "exact"
	// CertConverged: a variational answer that met its convergence test
	// and passed the shared check (Verify); its free energy is
	// Result.FreeEnergy.
	CertConverged = "converged"
	// CertMonteCarlo: a Monte Carlo answer whose chains mixed by the
	// method's own test, with standard errors of its marginals
	// (StandardErrors) and of its ln Z.
	CertMonteCarlo = "monte-carlo"
	// CertBounds: nothing above; the answer comes with a lower and an upper
	// bound on ln Z (mean field and TRW) and their width.
	CertBounds = "bounds"
	// CertNone: nothing backs the answer, not even bounds.
	CertNone = "none"
)

// Method is an inference method.
type Method interface {
	// Name is the method's short name as written in output files ("mf", "bp", ...).
	Name() string
	// Infer runs the method on m. A method may keep state between calls
	// (messages, network weights) and warm-start from it when m has the same
	// structure as the previous call (used by learning). Implementations check
	// ctx once per sweep and return an error wrapping ctx.Err() when it is done.
	Infer(ctx context.Context, m *mrf.Model) (*Result, error)
}

// Named returns err, an error of method, beginning with the method's name:
// err itself when it already does (methods name themselves in their errors),
// else err wrapped as "method: err". Callers that add the name this way never
// write it twice ("bp: bp: ...").
func Named(method string, err error) error {
	if err == nil || strings.HasPrefix(err.Error(), method+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", method, err)
}
