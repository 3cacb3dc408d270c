package report

// The report's view of the runner: the instances of a pipeline config,
// their inputs, flags and stamps, and their status against the stage
// binaries. Nothing else in the package imports stages/pipeline
// or its config.

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
)

// plan is a pipeline config's instances, in dependency order.
type plan struct {
	config string // the config's path, as given
	dir    string // the config's directory (relative data paths start here)
	data   string // the root of the stage outputs
	insts  []*instance
	cfg    *config.Config
}

// instance is one run of a stage binary.
type instance struct {
	id, stage, outDir string
	binary            string            // the binary it runs (score, learn-mrf, ...)
	flags             map[string]string // the stage's flags
	shard             map[string]string // the values naming its shard
	inputs            []input
	p                 *pipeline.Instance
}

// input is an upstream instance given to a flag.
type input struct {
	flag string
	from *instance
}

// readPlan reads the config at path and plans its instances.
func readPlan(path string) (*plan, error) {
	pp, err := pipeline.Load(path)
	if err != nil {
		return nil, err
	}
	cfg := pp.Config
	p := &plan{config: path, dir: cfg.Dir, data: cfg.DataDir, cfg: cfg}
	byP := map[*pipeline.Instance]*instance{}
	for _, in := range pp.Instances {
		inst := &instance{id: in.ID, stage: in.Stage.Name, outDir: in.OutDir, p: in,
			flags: map[string]string{}, shard: map[string]string{}}
		if len(in.Stage.Run) > 0 {
			inst.binary = in.Stage.Run[0]
		}
		for _, f := range in.Stage.Flags {
			inst.flags[f.Name] = f.Value
		}
		for _, s := range in.Shard {
			inst.shard[s.Name] = s.Value
		}
		for _, d := range in.Inputs {
			inst.inputs = append(inst.inputs, input{flag: d.Flag, from: byP[d.From]})
		}
		byP[in] = inst
		p.insts = append(p.insts, inst)
	}
	return p, nil
}

// of returns the instances of the named stage.
func (p *plan) of(stage string) []*instance {
	var out []*instance
	for _, inst := range p.insts {
		if inst.stage == stage {
			out = append(out, inst)
		}
	}
	return out
}

// stages lists the names of the stages of insts that run binary ("" any),
// in plan order.
func stages(insts []*instance, binary string) []string {
	var out []string
	seen := map[string]bool{}
	for _, inst := range insts {
		if (binary == "" || inst.binary == binary) && !seen[inst.stage] {
			seen[inst.stage] = true
			out = append(out, inst.stage)
		}
	}
	return out
}

// withPrefix splits insts into those of stages whose names begin with one
// of prefixes and the others.
func withPrefix(insts []*instance, prefixes []string) (matched, rest []*instance) {
	for _, inst := range insts {
		if hasPrefix(inst.stage, prefixes) {
			matched = append(matched, inst)
		} else {
			rest = append(rest, inst)
		}
	}
	return matched, rest
}

// hasPrefix reports whether s begins with one of prefixes (or matches one
// of them as a part pattern, see sectionSpec.Parts).
func hasPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return matchPart(s, p) })
}

// inputs are the instances given to flag.
func (inst *instance) inputsOf(flag string) []*instance {
	var out []*instance
	for _, in := range inst.inputs {
		if in.flag == flag && in.from != nil {
			out = append(out, in.from)
		}
	}
	return out
}

// inputOf is the first instance given to flag, or nil.
func (inst *instance) inputOf(flag string) *instance {
	if in := inst.inputsOf(flag); len(in) > 0 {
		return in[0]
	}
	return nil
}

// stamp is what the runner recorded of a completed instance.
type stamp struct {
	started, finished time.Time
	seconds, cpu      float64 // wall and CPU (user + system) seconds
	rssKiB            int64   // peak resident memory; 0 not recorded
}

// readStamp reads the stamp in dir; ok is false when the instance has not
// completed.
func readStamp(dir string) (s stamp, ok bool, err error) {
	st, err := pipeline.ReadStamp(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	return stamp{started: st.Started, finished: st.Finished, seconds: st.Seconds, cpu: st.CPUSeconds, rssKiB: st.MaxRSSKiB}, true, nil
}

// status counts insts by state (up to date, stale, missing) against the
// binaries in binDir, as 'pipeline status' does on a plan of those
// instances alone, and lists the stale ones.
func (p *plan) status(insts []*instance, binDir string) (map[string]int, []string, error) {
	sub := &pipeline.Plan{Config: p.cfg}
	for _, inst := range insts {
		sub.Instances = append(sub.Instances, inst.p)
	}
	sts, err := sub.Status(binDir)
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline status: %w", err)
	}
	counts := map[string]int{}
	var stale []string
	for _, st := range sts {
		counts[st.State.String()]++
		if st.State == pipeline.Stale {
			stale = append(stale, st.Instance.ID)
		}
	}
	return counts, stale, nil
}
