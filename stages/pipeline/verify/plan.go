package verify

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// Options say which instances Run reruns.
//
// A stage's binary serves several code paths: train-renn runs RENN or the
// Inference Net, learn-mrf learns with any of seven methods, and a change
// may touch one path only. The cheapest instances alone could all take the
// same path, so Cover names shard keys (such as method) for which every
// value must be sampled.
type Options struct {
	// Sample is how many eligible instances of each stage, the cheapest
	// by their recorded run time, are rerun; < 1 means 1.
	Sample int
	// Cover lists shard keys: for each, the cheapest eligible instance of
	// every value of the key is rerun too.
	Cover []string
	// Tol is the tolerance within which a sample's floats equal the
	// cached ones (see compare-outputs --tol); 0: bit for bit.
	Tol float64
}

// ErrChanged is returned (wrapped) by Run when the new binary of
// some stage gave results different from the cached ones.
var ErrChanged = errors.New("stage results changed")

// ErrBadOption is returned (wrapped) by NewPlan and Check for an option
// out of its range.
var ErrBadOption = errors.New("bad option")

// ErrUnknownShardKey is returned (wrapped) by NewPlan for a Cover
// key that no instance of the plan is sharded by (a mistyped key). A key
// that shards some stage of the plan but none that Only selects covers
// nothing, and is not an error: one --cover serves every selection.
var ErrUnknownShardKey = errors.New("no stage is sharded by")

// Plan is what Run reruns and what it may adopt, judged
// against the binaries as they are when it is made.
type Plan struct {
	Plan   *pipeline.Plan
	Stages []*StageCheck // the stages with eligible instances, in plan order
	// Ineligible are the instances that are missing or stale for another
	// reason than the binary: only pipeline run can bring them up to date.
	Ineligible []pipeline.Status
	UpToDate   int // instances already up to date

	cands map[*pipeline.Instance]candidate
	tol   float64 // Options.Tol
}

// candidate is an eligible instance as judged when the plan was made.
type candidate struct {
	stamp *pipeline.Stamp
	fp    *pipeline.Fingerprint
}

// StageCheck is the verification of one stage.
type StageCheck struct {
	Stage *config.Stage
	// Eligible are the instances stale only because the binary changed:
	// their flags, inputs and outputs are as their stamps recorded. Plan order.
	Eligible []*pipeline.Instance
	Samples  []*Sample // rerun and compared, cheapest first

	// Set by Run.
	Adopted int   // eligible instances re-stamped for the new binary
	Err     error // adopting failed
}

// Sample is an eligible instance rerun with the new binary.
type Sample struct {
	Instance *pipeline.Instance
	Why      string  // "cheapest", "method=bp", ...
	Recorded float64 // seconds its cached run took (from its stamp)

	// Set by Run.
	Result *runner.Result // runner.Ran if it ran and exited 0; runner.Skipped if not run because its stage had already changed
	Diff   *Difference    // the first difference from the cached outputs; nil if none
}

// NewPlan judges every instance of p (those named by Only, if set) and
// picks the samples of each stage with eligible instances.
func NewPlan(r *runner.Runner, p *pipeline.Plan, v Options) (*Plan, error) {
	sel, err := check(r, p, v)
	if err != nil {
		return nil, err
	}
	vp := &Plan{Plan: p, cands: map[*pipeline.Instance]candidate{}, tol: v.Tol}
	h := pipeline.NewJudge()
	byStage := map[*config.Stage]*StageCheck{}
	for _, inst := range p.Instances {
		if !sel[inst] {
			continue
		}
		st, c, err := eligible(r, h, p, inst)
		if err != nil {
			return nil, err
		}
		switch {
		case c != nil:
			vp.cands[inst] = *c
			sc := byStage[inst.Stage]
			if sc == nil {
				sc = &StageCheck{Stage: inst.Stage}
				byStage[inst.Stage] = sc
				vp.Stages = append(vp.Stages, sc)
			}
			sc.Eligible = append(sc.Eligible, inst)
		case st.State == pipeline.UpToDate:
			vp.UpToDate++
		default:
			vp.Ineligible = append(vp.Ineligible, st)
		}
	}
	for _, sc := range vp.Stages {
		sc.Samples = vp.pick(sc.Eligible, v)
	}
	return vp, nil
}

// Check checks, without reading any file, that NewPlan can
// select the instances r.Only names and that v.Cover names shard keys of
// them: a mistake is better found before building the binaries.
func Check(r *runner.Runner, p *pipeline.Plan, v Options) error {
	_, err := check(r, p, v)
	return err
}

func check(r *runner.Runner, p *pipeline.Plan, v Options) (map[*pipeline.Instance]bool, error) {
	if !(v.Tol >= 0) || math.IsInf(v.Tol, 1) {
		return nil, fmt.Errorf("%w: --tol %v, want a finite number >= 0 (0: bit for bit)", ErrBadOption, v.Tol)
	}
	sel, err := p.Select(r.Only)
	if err != nil {
		return nil, err
	}
	for _, key := range v.Cover {
		if !slices.ContainsFunc(p.Instances, func(inst *pipeline.Instance) bool { return shardValue(inst, key) != "" }) {
			return nil, fmt.Errorf("--cover %s: %w %s", key, ErrUnknownShardKey, key)
		}
	}
	return sel, nil
}

// eligible judges inst; c is nil unless it is stale only because its binary
// changed, and that binary was built as the pipeline builds.
func eligible(r *runner.Runner, h *pipeline.Judge, p *pipeline.Plan, inst *pipeline.Instance) (pipeline.Status, *candidate, error) {
	st, fp, err := h.Assess(p, inst, r.BinDir)
	if err != nil || st.State != pipeline.Stale || fp == nil {
		return st, nil, err
	}
	stamp, err := pipeline.ReadStamp(inst.OutDir)
	if err != nil {
		return st, nil, err
	}
	ok, err := h.BinaryOnly(p, inst, stamp, fp)
	if err != nil || !ok {
		return st, nil, err
	}
	if flaw := h.BuildFlaws(fp.Binary); flaw != "" {
		// Adopting for it would be undone by the next build.
		return st, nil, nil
	}
	if flag := writesOutside(inst); flag != "" {
		// A sample would write there too (over the instance's own files,
		// or refused as another run), and only --out is compared.
		st.Reason += "; it also writes --" + flag + ", which verify does not compare"
		return st, nil, nil
	}
	return st, &candidate{stamp: stamp, fp: fp}, nil
}

// writesOutside returns the name of a flag of inst that names an output
// besides --out (a --*-out flag, as --uai-out), or "".
func writesOutside(inst *pipeline.Instance) string {
	for _, a := range inst.Args {
		name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if ok && strings.HasPrefix(a, "--") && name != "out" && strings.HasSuffix(name, "-out") && value != "" {
			return name
		}
	}
	return ""
}

// shardValue returns the value of inst's shard key, or "".
func shardValue(inst *pipeline.Instance, key string) string {
	for _, s := range inst.Shard {
		if s.Name == key {
			return s.Value
		}
	}
	return ""
}

// pick returns the samples of one stage: its v.Sample cheapest eligible
// instances, then the cheapest of each value of each v.Cover key not yet
// sampled, cheapest first.
func (vp *Plan) pick(eligible []*pipeline.Instance, v Options) []*Sample {
	byCost := slices.Clone(eligible)
	slices.SortStableFunc(byCost, func(a, b *pipeline.Instance) int {
		sa, sb := vp.cands[a].stamp.Seconds, vp.cands[b].stamp.Seconds
		switch {
		case sa < sb:
			return -1
		case sa > sb:
			return 1
		}
		return 0
	})
	chosen := map[*pipeline.Instance]*Sample{}
	choose := func(inst *pipeline.Instance, why string) {
		if s := chosen[inst]; s != nil {
			s.Why += ", " + why
			return
		}
		chosen[inst] = &Sample{Instance: inst, Why: why, Recorded: vp.cands[inst].stamp.Seconds}
	}
	for _, inst := range byCost[:min(max(v.Sample, 1), len(byCost))] {
		choose(inst, "cheapest")
	}
	for _, key := range v.Cover {
		seen := map[string]bool{}
		for _, inst := range byCost {
			if val := shardValue(inst, key); val != "" && !seen[val] {
				seen[val] = true
				choose(inst, key+"="+val)
			}
		}
	}
	var out []*Sample
	for _, inst := range byCost {
		if s := chosen[inst]; s != nil {
			out = append(out, s)
		}
	}
	return out
}

// verifyDir is where the samples write their outputs, under the data root:
// on the same file system, and skipped by stamps (its name begins with ".").
func verifyDir(p *pipeline.Plan) string { return filepath.Join(p.Config.DataDir, ".verify") }

// sampleArgs are inst's arguments with the output directory moved to out.
func sampleArgs(p *pipeline.Plan, inst *pipeline.Instance, out string) []string {
	args := make([]string, len(inst.Args))
	for i, a := range inst.Args {
		if strings.HasPrefix(a, "--out=") {
			a = "--out=" + p.Config.Rel(out)
		}
		args[i] = a
	}
	return args
}

// sampleDir is the temporary output directory of one sample.
func sampleDir(p *pipeline.Plan, inst *pipeline.Instance) string {
	return filepath.Join(verifyDir(p), filepath.FromSlash(inst.ID))
}

// WritePlan writes what Verify would do: per stage, the instances it
// reruns and why, then the instances it cannot adopt. (Each sample runs
// its instance's command line, which pipeline run --dry-run shows, with
// --out moved.)
func (vp *Plan) WritePlan(w io.Writer) {
	eligible, samples, secs := 0, 0, 0.0
	for _, sc := range vp.Stages {
		eligible += len(sc.Eligible)
		samples += len(sc.Samples)
		for _, s := range sc.Samples {
			secs += s.Recorded
		}
	}
	fmt.Fprintf(w, "verify plan: %d instances: %d eligible in %d stages, %d not eligible, %d up to date\n",
		eligible+len(vp.Ineligible)+vp.UpToDate, eligible, len(vp.Stages), len(vp.Ineligible), vp.UpToDate)
	fmt.Fprintf(w, "reruns %d samples, which took %s when cached, each with its own arguments but --out=%s%c<instance>\n",
		samples, seconds(secs), vp.Plan.Config.Rel(verifyDir(vp.Plan)), filepath.Separator)
	for _, sc := range vp.Stages {
		fmt.Fprintf(w, "%s: %d eligible, %d sampled\n", sc.Stage.Name, len(sc.Eligible), len(sc.Samples))
		for _, s := range sc.Samples {
			fmt.Fprintf(w, "  %s  (%s; cached run %s)\n", s.Instance.ID, s.Why, seconds(s.Recorded))
		}
	}
	vp.writeIneligible(w)
}

func (vp *Plan) writeIneligible(w io.Writer) {
	if len(vp.Ineligible) == 0 {
		return
	}
	fmt.Fprintf(w, "not eligible, %d (missing, or stale for another reason than the binary; pipeline run reruns them):\n", len(vp.Ineligible))
	for _, st := range vp.Ineligible {
		fmt.Fprintf(w, "  %s  %s: %s\n", st.Instance.ID, st.State, st.Reason)
	}
}

// seconds writes a duration given in seconds, rounded for reading.
func seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
