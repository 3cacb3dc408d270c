package pipeline

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/renn-go/renn/stages/pipeline/config"
)

// Plan is a config expanded into stage instances: one per stage, or one per
// shard of a stage that fans out, in dependency order.
type Plan struct {
	Config    *config.Config
	Instances []*Instance // dependency order: every instance after its Deps
}

// Instance is one run of a stage binary with fixed arguments.
type Instance struct {
	ID     string         // stage name, then /key=value,... for a shard
	Stage  *config.Stage  //
	Shard  []config.Param // values naming this shard: inherited from upstream, then its own
	Args   []string       // arguments after the binary; the last is --out=DIR
	OutDir string         // absolute output directory
	Inputs []InputDir     // in the order they appear in Args
	Deps   []*Instance    // distinct upstream instances, in plan order
}

// InputDir is one output directory passed to a flag.
type InputDir struct {
	Flag string
	From *Instance
}

// ErrUnknownStage is returned for a --only name that is neither a stage nor
// an instance of the plan.
var ErrUnknownStage = errors.New("no such stage")

// NewPlan expands the stages of c into instances.
//
// A stage with shard lists runs once per combination of their values
// (cartesian product, in file order) and passes each value as its flag. A
// stage whose single-valued input comes from a sharded stage runs once per
// upstream shard; with several such inputs, shards are matched on the
// parameters they share. A list input instead receives every matching
// upstream instance, so a stage can gather all shards.
func NewPlan(c *config.Config) (*Plan, error) {
	order, err := c.Order()
	if err != nil {
		return nil, err
	}
	p := &Plan{Config: c}
	byStage := make(map[string][]*Instance)
	for _, s := range order {
		insts, err := p.expand(s, byStage)
		if err != nil {
			return nil, err
		}
		byStage[s.Name] = insts
		p.Instances = append(p.Instances, insts...)
	}
	return p, nil
}

// Load reads the config file at path (see package config) and expands it
// into instances.
func Load(path string) (*Plan, error) {
	c, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	return NewPlan(c)
}

// combo is one instance of a stage under construction.
type combo struct {
	shard []config.Param       // inherited, then own
	own   []config.Param       // this stage's own shard values
	picks map[string]*Instance // single-valued input flag -> upstream instance
}

// expand makes the instances of stage s, given those of the stages before it.
func (p *Plan) expand(s *config.Stage, byStage map[string][]*Instance) ([]*Instance, error) {
	combos, err := p.inputCombos(s, byStage)
	if err != nil {
		return nil, err
	}
	combos, err = p.shardCombos(s, combos)
	if err != nil {
		return nil, err
	}
	insts := make([]*Instance, 0, len(combos))
	for _, cb := range combos {
		inst, err := p.newInstance(s, cb, byStage)
		if err != nil {
			return nil, err
		}
		insts = append(insts, inst)
	}
	return insts, nil
}

// inputCombos pairs the shards of the single-valued inputs of s: one combo
// per upstream shard, matched on the parameters they share.
func (p *Plan) inputCombos(s *config.Stage, byStage map[string][]*Instance) ([]combo, error) {
	combos := []combo{{picks: map[string]*Instance{}}}
	for _, in := range s.Inputs {
		if in.List {
			continue
		}
		var next []combo
		for _, cb := range combos {
			for _, u := range byStage[in.From[0]] {
				merged, ok := mergeShard(cb.shard, u.Shard)
				if !ok {
					continue
				}
				picks := maps.Clone(cb.picks)
				picks[in.Flag] = u
				next = append(next, combo{shard: merged, picks: picks})
			}
		}
		if len(next) == 0 {
			return nil, p.Config.Errorf([]string{"stage", s.Name, "inputs", in.Flag},
				"no shard of stage %q matches the shards of the other inputs", in.From[0])
		}
		combos = next
	}
	return combos, nil
}

// shardCombos fans each combo out over the shard lists of s.
func (p *Plan) shardCombos(s *config.Stage, combos []combo) ([]combo, error) {
	for _, axis := range s.Shard {
		for _, sp := range combos[0].shard {
			if sp.Name == axis.Name {
				return nil, p.Config.Errorf([]string{"stage", s.Name, "shard", axis.Name},
					"%s is already a shard parameter of an upstream stage", axis.Name)
			}
		}
		var next []combo
		for _, cb := range combos {
			for _, v := range axis.Values {
				next = append(next, combo{
					shard: append(cloneParams(cb.shard), v),
					own:   append(cloneParams(cb.own), v),
					picks: cb.picks,
				})
			}
		}
		combos = next
	}
	return combos, nil
}

// newInstance makes the instance of s for one combo: its ID, output
// directory, arguments and upstream instances.
func (p *Plan) newInstance(s *config.Stage, cb combo, byStage map[string][]*Instance) (*Instance, error) {
	c := p.Config
	inst := &Instance{Stage: s, Shard: cb.shard, ID: s.Name}
	inst.OutDir = filepath.Join(c.DataDir, s.Name)
	if len(cb.shard) > 0 {
		name := shardName(cb.shard)
		inst.ID += "/" + name
		inst.OutDir = filepath.Join(inst.OutDir, name)
	}
	inst.Args = append(inst.Args, s.Run[1:]...)
	for _, f := range s.Flags {
		inst.Args = append(inst.Args, f.Arg())
	}
	for _, f := range cb.own {
		inst.Args = append(inst.Args, f.Arg())
	}
	for _, in := range s.Inputs {
		from, err := p.inputsOf(s, in, cb, byStage)
		if err != nil {
			return nil, err
		}
		for _, u := range from {
			inst.Inputs = append(inst.Inputs, InputDir{Flag: in.Flag, From: u})
			inst.Args = append(inst.Args, "--"+in.Flag+"="+c.Rel(u.OutDir))
		}
	}
	inst.Args = append(inst.Args, "--out="+c.Rel(inst.OutDir))
	seen := make(map[*Instance]bool)
	for _, in := range inst.Inputs {
		if !seen[in.From] {
			seen[in.From] = true
			inst.Deps = append(inst.Deps, in.From)
		}
	}
	return inst, nil
}

// inputsOf returns the upstream instances input in of s gets in combo cb:
// the one picked for a single-valued input, every matching shard for a list.
func (p *Plan) inputsOf(s *config.Stage, in config.Input, cb combo, byStage map[string][]*Instance) ([]*Instance, error) {
	if !in.List {
		return []*Instance{cb.picks[in.Flag]}, nil
	}
	var from []*Instance
	for _, name := range in.From {
		for _, u := range byStage[name] {
			if _, ok := mergeShard(cb.shard, u.Shard); ok {
				from = append(from, u)
			}
		}
	}
	if len(from) == 0 {
		return nil, p.Config.Errorf([]string{"stage", s.Name, "inputs", in.Flag},
			"no instance of %s matches shard %s", strings.Join(in.From, ", "), shardName(cb.shard))
	}
	return from, nil
}

func cloneParams(ps []config.Param) []config.Param { return append([]config.Param(nil), ps...) }

// mergeShard joins two shard assignments; ok is false if they disagree on a
// parameter they share.
func mergeShard(a, b []config.Param) (merged []config.Param, ok bool) {
	merged = cloneParams(a)
next:
	for _, pb := range b {
		for _, pa := range a {
			if pa.Name == pb.Name {
				if pa.Value != pb.Value {
					return nil, false
				}
				continue next
			}
		}
		merged = append(merged, pb)
	}
	return merged, true
}

// shardName names a shard directory: key=value pairs joined by commas.
func shardName(shard []config.Param) string {
	parts := make([]string, len(shard))
	for i, p := range shard {
		parts[i] = p.Name + "=" + p.Value
	}
	return strings.Join(parts, ",")
}

// Lookup returns the instance with the given ID, or nil.
func (p *Plan) Lookup(id string) *Instance {
	for _, inst := range p.Instances {
		if inst.ID == id {
			return inst
		}
	}
	return nil
}

// Select resolves names (stage names, which select every instance of the
// stage, or instance IDs) to instances. With no names it selects all.
func (p *Plan) Select(names []string) (map[*Instance]bool, error) {
	sel := make(map[*Instance]bool)
	if len(names) == 0 {
		for _, inst := range p.Instances {
			sel[inst] = true
		}
		return sel, nil
	}
	for _, name := range names {
		found := false
		for _, inst := range p.Instances {
			if inst.Stage.Name == name || inst.ID == name {
				sel[inst] = true
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w %q in %s (stages: %s)", ErrUnknownStage, name,
				p.Config.File, strings.Join(p.Config.StageNames(), ", "))
		}
	}
	return sel, nil
}

// withAncestors adds every upstream instance of sel to it.
func (p *Plan) WithAncestors(sel map[*Instance]bool) map[*Instance]bool {
	out := make(map[*Instance]bool, len(sel))
	for inst := range sel {
		out[inst] = true
	}
	for i := len(p.Instances) - 1; i >= 0; i-- { // reverse dependency order
		inst := p.Instances[i]
		if out[inst] {
			for _, d := range inst.Deps {
				out[d] = true
			}
		}
	}
	return out
}
