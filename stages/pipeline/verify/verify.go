package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/proc"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// Run reruns the samples of vp with the current binaries, each with its
// own arguments but for --out, which points into <data>/.verify, up to
// r.Jobs at once, and compares their outputs with the cached ones (CompareOutputs).
// A stage whose samples all match has every eligible instance re-stamped
// for its new binary: the stamp then holds the binary's sum, the flags and
// input files as they are and the current output sums, keeps the times of
// the run that made the outputs, and records the pipeline.Adoption. A
// stage with a difference or a failed sample is left stale; its samples
// not yet started are skipped.
//
// Each sample's directory is removed once compared, and <data>/.verify at
// the end, also after a failure or cancellation, and at the start (what a
// killed run left). The error wraps ErrChanged if some stage changed its
// results, runner.ErrFailed if a sample failed or a stage could not be
// adopted, and context.Canceled if ctx was cancelled (then nothing is
// adopted).
func Run(ctx context.Context, r *runner.Runner, vp *Plan) error {
	if r.Batch != nil {
		return errors.New("verify runs its samples locally, not through Slurm")
	}
	p := vp.Plan
	root := verifyDir(p)
	if _, err := os.Stat(root); err == nil {
		r.Log().Info("removing what an interrupted verify left", "dir", p.Config.Rel(root))
	}
	if err := os.RemoveAll(root); err != nil {
		return fmt.Errorf("verify: remove %s: %w", root, err)
	}
	defer os.RemoveAll(root)
	if err := runSamples(ctx, r, vp); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	now := time.Now().UTC()
	for _, sc := range vp.Stages {
		if sc.same() {
			adopt(r.Log(), vp, sc, now)
		}
	}
	return vp.err()
}

// same reports whether every sample of sc ran and matched its cached outputs.
func (sc *StageCheck) same() bool {
	return len(sc.Samples) > 0 && !slices.ContainsFunc(sc.Samples, func(s *Sample) bool {
		return s.Result == nil || s.Result.Outcome != runner.Ran || s.Diff != nil
	})
}

// Changed returns the first sample of sc whose results differ, or nil.
func (sc *StageCheck) Changed() *Sample {
	for _, s := range sc.Samples {
		if s.Diff != nil {
			return s
		}
	}
	return nil
}

// Failed returns the first sample of sc that failed, or nil.
func (sc *StageCheck) Failed() *Sample {
	for _, s := range sc.Samples {
		if s.Result != nil && s.Result.Outcome == runner.Failed {
			return s
		}
	}
	return nil
}

// adopt re-stamps every eligible instance of sc for the current binary.
func adopt(log *slog.Logger, vp *Plan, sc *StageCheck, at time.Time) {
	h := pipeline.NewJudge()
	var ids []string
	for _, s := range sc.Samples {
		ids = append(ids, s.Instance.ID)
	}
	for _, inst := range sc.Eligible {
		if err := adoptOne(h, vp.Plan, inst, vp.cands[inst], pipeline.Adoption{At: at, Sampled: ids}); err != nil {
			sc.Err = errors.Join(sc.Err, err)
			continue
		}
		sc.Adopted++
	}
	log.Info("adopted", "stage", sc.Stage.Name, "instances", sc.Adopted, "of", len(sc.Eligible))
}

// adoptOne re-stamps inst after judging it again: the binary must be the
// one the samples ran, and only it may have changed since inst's run.
func adoptOne(h *pipeline.Judge, p *pipeline.Plan, inst *pipeline.Instance, c candidate, a pipeline.Adoption) error {
	stamp, err := pipeline.ReadStamp(inst.OutDir)
	if err != nil {
		return fmt.Errorf("adopt %s: %w", inst.ID, err)
	}
	fp, err := h.Fingerprint(p, inst, c.fp.Binary)
	if err != nil {
		return fmt.Errorf("adopt %s: %w", inst.ID, err)
	}
	if fp.BinarySum != c.fp.BinarySum {
		return fmt.Errorf("adopt %s: %s changed while verifying", inst.ID, p.Config.Rel(fp.Binary))
	}
	ok, err := h.BinaryOnly(p, inst, stamp, fp)
	if err == nil && !ok {
		err = errors.New("its stamp, flags, inputs or outputs changed while verifying")
	}
	if err != nil {
		return fmt.Errorf("adopt %s: %w", inst.ID, err)
	}
	outs, err := h.Outputs(inst.OutDir)
	if err != nil {
		return fmt.Errorf("adopt %s: %w", inst.ID, err)
	}
	ns := *stamp // keeps Started, Finished and Seconds: the outputs' run
	ns.ID, ns.Fingerprint = inst.ID, fp.Sum
	ns.Binary, ns.BinarySHA256 = p.Config.Rel(fp.Binary), fp.BinarySum
	ns.Args, ns.Inputs, ns.Paths, ns.Outputs = inst.Args, fp.Inputs, fp.Paths, outs
	a.PreviousBinary = stamp.BinarySHA256
	ns.Adopted = append(slices.Clone(stamp.Adopted), a)
	return pipeline.WriteStamp(inst.OutDir, &ns)
}

// err sums up a finished verification as Verify's error.
func (vp *Plan) err() error {
	var changed, failed []string
	for _, sc := range vp.Stages {
		switch {
		case sc.Changed() != nil:
			changed = append(changed, sc.Stage.Name)
		case sc.Failed() != nil || sc.Err != nil:
			failed = append(failed, sc.Stage.Name)
		}
	}
	var errs []error
	if len(changed) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s", ErrChanged, strings.Join(changed, ", ")))
	}
	if len(failed) > 0 {
		errs = append(errs, fmt.Errorf("could not verify %s: %w", strings.Join(failed, ", "), runner.ErrFailed))
	}
	return errors.Join(errs...)
}

// WriteSummary writes, per stage, the samples rerun, the time they took
// and what became of the stage, then the instances verify could not adopt.
func (vp *Plan) WriteSummary(w io.Writer) {
	adopted, insts := 0, 0
	for _, sc := range vp.Stages {
		if sc.Adopted > 0 {
			adopted++
			insts += sc.Adopted
		}
	}
	fmt.Fprintf(w, "verify: %d %s with eligible instances, %d adopted (%d %s)\n",
		len(vp.Stages), plural(len(vp.Stages), "stage"), adopted, insts, plural(insts, "instance"))
	width := 0
	for _, sc := range vp.Stages {
		width = max(width, len(sc.Stage.Name))
	}
	for _, sc := range vp.Stages {
		var spent time.Duration
		var ids []string
		for _, s := range sc.Samples {
			if s.Result != nil {
				spent += s.Result.Elapsed
			}
			ids = append(ids, s.Instance.ID)
		}
		fmt.Fprintf(w, "  %-*s  sampled %s, %s: %s\n", width, sc.Stage.Name,
			strings.Join(ids, " "), seconds(spent.Seconds()), sc.verdict())
		if f := sc.Failed(); f != nil && sc.Changed() == nil {
			var ee *proc.ExitError
			if errors.As(f.Result.Err, &ee) {
				for _, l := range ee.Tail {
					fmt.Fprintf(w, "      | %s\n", l)
				}
			}
		}
	}
	vp.writeIneligible(w)
	if vp.UpToDate > 0 {
		fmt.Fprintf(w, "%d instances were already up to date\n", vp.UpToDate)
	}
}

// verdict says what became of sc.
func (sc *StageCheck) verdict() string {
	if s := sc.Changed(); s != nil {
		return fmt.Sprintf("changed: %s: %s (left stale: pipeline run reruns the stage)", s.Instance.ID, s.Diff)
	}
	if s := sc.Failed(); s != nil {
		var ee *proc.ExitError
		if errors.As(s.Result.Err, &ee) {
			return fmt.Sprintf("FAILED: %s: %s; last lines of its stderr:", s.Instance.ID, ee.Ended())
		}
		return fmt.Sprintf("FAILED: %v", s.Result.Err)
	}
	for _, s := range sc.Samples {
		if s.Result == nil || s.Result.Outcome == runner.Cancelled {
			return "interrupted; nothing adopted"
		}
	}
	msg := fmt.Sprintf("adopted %d %s", sc.Adopted, plural(sc.Adopted, "instance"))
	if sc.Adopted < len(sc.Eligible) {
		msg = fmt.Sprintf("adopted %d of %d instances; FAILED: %v", sc.Adopted, len(sc.Eligible), sc.Err)
	}
	return msg
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
