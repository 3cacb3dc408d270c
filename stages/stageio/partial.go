package stageio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/renn-go/renn/formats"
)

// PartialDir is the subdirectory of a stage's output directory where an
// interrupted stage keeps what it finished: the stage's usual files (its
// Parquet outputs, not --uai-out's), holding only the finished models and
// marked partial in their provenance. The output directory itself keeps the
// previous complete outputs, if any; the next complete run removes
// PartialDir.
const PartialDir = "partial"

// Interrupted is the error of a stage that an interruption (a cancelled
// context) stopped: it wraps the context's error, and says what the stage
// kept.
type Interrupted struct {
	Err        error  // the context's error, as the stage met it
	Done, Of   int    // runs (models, or model and method pairs) finished, of all
	Unit       string // what Done and Of count: "models", "runs"
	Kept       string // the directory holding the finished runs; "" if none was kept
	WriteError error  // why keeping them failed, if it did
}

func (e *Interrupted) Error() string { return "interrupted: " + e.Interruption() }

func (e *Interrupted) Unwrap() error { return e.Err }

// Interruption says in one line what the stage did and kept.
func (e *Interrupted) Interruption() string {
	switch {
	case e.WriteError != nil:
		return fmt.Sprintf("%d of %d %s finished, but keeping them failed: %v", e.Done, e.Of, e.Unit, e.WriteError)
	case e.Kept == "":
		return fmt.Sprintf("no %s finished (of %d), no outputs written", e.Unit, e.Of)
	}
	return fmt.Sprintf("%d of %d %s finished, kept in %s (marked partial; outputs of an earlier complete run are left as they were)",
		e.Done, e.Of, e.Unit, e.Kept+string(filepath.Separator))
}

// PartialParams is what a partial output records as its parameters: the
// stage's, and how much of the run it holds.
type PartialParams struct {
	Params  any    `json:"params"`
	Partial string `json:"partial"` // e.g. "3 of 10 models: interrupted"
}

// KeepPartial ends a stage that ctxErr interrupted after done of of runs:
// when some finished, outs (written by the stage's writers with PartialParams
// as parameters) go to out/PartialDir, committed as Commit does. It returns
// the stage's error, an *Interrupted.
func KeepPartial(ctxErr error, out string, done, of int, unit string, outs ...Output) error {
	e := &Interrupted{Err: ctxErr, Done: done, Of: of, Unit: unit}
	if done == 0 {
		return e
	}
	dir := filepath.Join(out, PartialDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		e.WriteError = err
		return e
	}
	if err := Commit(dir, outs...); err != nil {
		e.WriteError = err
		return e
	}
	e.Kept = dir
	return e
}

// PartialNote is the Partial field of PartialParams for done of of runs.
func PartialNote(done, of int, unit string) string {
	return fmt.Sprintf("%d of %d %s: interrupted", done, of, unit)
}

// RemovePartial removes the partial outputs of an earlier interrupted run
// from out, once the stage has committed complete ones.
func RemovePartial(out string) error {
	err := os.RemoveAll(filepath.Join(out, PartialDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the partial outputs of an earlier run: %w", err)
	}
	return nil
}

// Finished is what a stage that writes marginals.parquet and
// estimates.parquet finished before an interruption.
type Finished struct {
	Stage    string // the stage's name, for the provenance
	Params   any    // the stage's parameters
	Seed     int64
	Inputs   []string
	Done, Of int
	Unit     string
	Marg     []formats.MarginalRow
	Est      []formats.EstimateRow
	// More are further outputs, given the provenance (stderrs.parquet).
	More func(formats.Provenance) []Output
}

// Keep ends the stage that ctxErr interrupted: KeepPartial with its
// marginals and estimates, marked partial.
func (f Finished) Keep(ctxErr error, out string) error {
	prov, err := Provenance(f.Stage, PartialParams{Params: f.Params, Partial: PartialNote(f.Done, f.Of, f.Unit)}, f.Seed, f.Inputs)
	if err != nil {
		return &Interrupted{Err: ctxErr, Done: f.Done, Of: f.Of, Unit: f.Unit, WriteError: err}
	}
	outs := []Output{
		{Name: formats.MarginalsFile, Write: func(path string) error { return formats.WriteMarginals(path, f.Marg, prov) }},
		{Name: formats.EstimatesFile, Write: func(path string) error { return formats.WriteEstimates(path, f.Est, prov) }},
	}
	if f.More != nil {
		outs = append(outs, f.More(prov)...)
	}
	return KeepPartial(ctxErr, out, f.Done, f.Of, f.Unit, outs...)
}
