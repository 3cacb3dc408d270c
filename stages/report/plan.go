package report

// The report's view of the runner: the instances of a pipeline config,
// their inputs, flags and stamps, and their status against the stage
// binaries. Nothing else in the package imports stages/pipeline
// or its config.

import (
	"slices"

	"github.com/renn-go/renn/stages/pipeline"
)

// plan is a pipeline config's instances, in dependency order.
type plan struct {
	config string // the config's path, as given
	dir    string // the config's directory (relative data paths start here)
	data   string // the root of the stage outputs
	insts  []*instance
	pp     *pipeline.Plan
}

// instance is one run of a stage binary.
type instance struct {
	ID, Stage, OutDir string
	Binary            string            // the binary it runs (score, learn-mrf, ...)
	Flags             map[string]string // the stage's flags
	Shard             map[string]string // the values naming its shard
	Inputs            []input
	p                 *pipeline.Instance
}

// input is an upstream instance given to a flag.
type input struct {
	Flag string
	From *instance
}

// readPlan reads the config at path and plans its instances.
func readPlan(path string) (*plan, error) {
	pp, err := pipeline.Load(path)
	if err != nil {
		return nil, err
	}
	cfg := pp.Config
	p := &plan{config: path, dir: cfg.Dir, data: cfg.DataDir, pp: pp}
	byP := map[*pipeline.Instance]*instance{}
	for _, in := range pp.Instances {
		inst := &instance{ID: in.ID, Stage: in.Stage.Name, OutDir: in.OutDir, p: in,
			Flags: map[string]string{}, Shard: map[string]string{}}
		if len(in.Stage.Run) > 0 {
			inst.Binary = in.Stage.Run[0]
		}
		for _, f := range in.Stage.Flags {
			inst.Flags[f.Name] = f.Value
		}
		for _, s := range in.Shard {
			inst.Shard[s.Name] = s.Value
		}
		for _, d := range in.Inputs {
			inst.Inputs = append(inst.Inputs, input{Flag: d.Flag, From: byP[d.From]})
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
		if inst.Stage == stage {
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
		if (binary == "" || inst.Binary == binary) && !seen[inst.Stage] {
			seen[inst.Stage] = true
			out = append(out, inst.Stage)
		}
	}
	return out
}

// withPrefix splits insts into those of stages whose names begin with one
// of prefixes and the others.
func withPrefix(insts []*instance, prefixes []string) (matched, rest []*instance) {
	for _, inst := range insts {
		if hasPrefix(inst.Stage, prefixes) {
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
	for _, in := range inst.Inputs {
		if in.Flag == flag && in.From != nil {
			out = append(out, in.From)
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
