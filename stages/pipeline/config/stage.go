package config

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// stageParser reads one [stage.NAME] table, collecting every mistake.
type stageParser struct {
	c    *Config
	name string
	md   toml.MetaData
	used map[string]string // flag name -> the key that sets it
	errs []error
}

func (c *Config) parseStage(name string, rs rawStage, md toml.MetaData) (*Stage, []error) {
	sp := &stageParser{c: c, name: name, md: md, used: make(map[string]string)}
	st := &Stage{Name: name, Line: c.keys.line(sp.key()...), RunLine: c.keys.line(sp.key("run")...)}
	if !nameRE.MatchString(name) {
		sp.fail(sp.key(), "stage name must be letters, digits, '-' or '_'")
	}
	st.Run = sp.run(rs.Run)
	st.Flags = sp.flags(rs.Flags)
	st.Shard = sp.shard(rs.Shard)
	var rerrs []error
	st.Resources, rerrs = c.parseResources(c.Resources, rs.Resources, md, sp.key("resources")...)
	sp.errs = append(sp.errs, rerrs...)
	st.Inputs = sp.inputs(rs.Inputs)
	st.Untracked = sp.untracked(rs.Untracked, st)
	return st, sp.errs
}

// key is the key of parts in the stage's table.
func (sp *stageParser) key(parts ...string) []string {
	return append([]string{"stage", sp.name}, parts...)
}

func (sp *stageParser) fail(key []string, format string, args ...any) {
	sp.errs = append(sp.errs, sp.c.Errorf(key, format, args...))
}

// run reads the run key: a list of words, or one string split at spaces.
func (sp *stageParser) run(v any) []string {
	var run []string
	switch v := v.(type) {
	case nil:
		sp.fail(sp.key(), `missing run = ["binary", "subcommand"...]`)
	case string:
		run = strings.Fields(v)
	case []any:
		for _, w := range v {
			s, ok := w.(string)
			if !ok {
				sp.fail(sp.key("run"), "want a list of strings, found %s in it", tomlType(w))
				break
			}
			run = append(run, s)
		}
	default:
		sp.fail(sp.key("run"), `want a list of strings like ["sample-model", "ising"], found %s`, tomlType(v))
	}
	if v != nil && len(sp.errs) == 0 {
		if len(run) == 0 {
			sp.fail(sp.key("run"), "must name a binary")
		} else if !nameRE.MatchString(run[0]) {
			sp.fail(sp.key("run"), "binary %q must be a plain name of a binary in the bin directory", run[0])
		}
	}
	return run
}

// claim reserves a flag for the key where, so that no two keys set it.
func (sp *stageParser) claim(flag string, where []string) bool {
	if flag == "out" {
		sp.fail(where, "--out is set by the pipeline")
		return false
	}
	if !nameRE.MatchString(flag) {
		sp.fail(where, "flag name must be letters, digits, '-' or '_'")
		return false
	}
	if prev, ok := sp.used[flag]; ok {
		sp.fail(where, "flag --%s is already set by %s", flag, prev)
		return false
	}
	sp.used[flag] = toml.Key(where).String()
	return true
}

// claimed yields the keys of one of the stage's tables of flags (flags,
// shard or inputs) in file order, each claimed as it comes, skipping those
// that cannot be.
func (sp *stageParser) claimed(table string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, f := range keysUnder(sp.md, sp.key(table)...) {
			if sp.claim(f, sp.key(table, f)) && !yield(f) {
				return
			}
		}
	}
}

// flags reads the flags table, in file order.
func (sp *stageParser) flags(raw map[string]any) []Param {
	var flags []Param
	for f := range sp.claimed("flags") {
		k := sp.key("flags", f)
		p, err := param(f, raw[f])
		if err != nil {
			sp.fail(k, "%v", err)
			continue
		}
		flags = append(flags, p)
	}
	return flags
}

// shard reads the shard table, in file order.
func (sp *stageParser) shard(raw map[string]any) []ShardAxis {
	var axes []ShardAxis
	for f := range sp.claimed("shard") {
		k := sp.key("shard", f)
		list, ok := raw[f].([]any)
		if !ok || len(list) == 0 {
			sp.fail(k, "want a non-empty list of values to fan out over, found %s", tomlType(raw[f]))
			continue
		}
		axes = append(axes, sp.shardAxis(k, f, list))
	}
	return axes
}

// shardAxis reads the values of one shard list up to the first that cannot
// name a directory or appears twice.
func (sp *stageParser) shardAxis(k []string, flag string, list []any) ShardAxis {
	axis := ShardAxis{Name: flag}
	seen := make(map[string]bool)
	for _, v := range list {
		p, err := param(flag, v)
		if err == nil && (p.Value == "" || strings.ContainsAny(p.Value, `/\,=`+"\x00") || strings.HasPrefix(p.Value, ".")) {
			err = fmt.Errorf("value %q cannot be part of a directory name", p.Value)
		}
		if err == nil && seen[p.Value] {
			err = fmt.Errorf("value %s appears twice", p.Value)
		}
		if err != nil {
			sp.fail(k, "%v", err)
			break
		}
		seen[p.Value] = true
		axis.Values = append(axis.Values, p)
	}
	return axis
}

// inputs reads the inputs table, in file order.
func (sp *stageParser) inputs(raw map[string]any) []Input {
	var inputs []Input
	for f := range sp.claimed("inputs") {
		k := sp.key("inputs", f)
		if in := sp.input(k, f, raw[f]); in.From != nil {
			inputs = append(inputs, in)
		}
	}
	return inputs
}

// input reads one input: a stage name, or a list of them. Its From is nil
// if it is wrong.
func (sp *stageParser) input(k []string, flag string, v any) Input {
	in := Input{Flag: flag, Line: sp.c.keys.line(k...)}
	switch v := v.(type) {
	case string:
		in.From = []string{v}
	case []any:
		in.List = true
		for _, w := range v {
			s, ok := w.(string)
			if !ok {
				sp.fail(k, "want a stage name or a list of stage names, found %s in the list", tomlType(w))
				in.From = nil
				break
			}
			in.From = append(in.From, s)
		}
		if len(v) == 0 {
			sp.fail(k, "empty list of stages")
		}
	default:
		sp.fail(k, "want a stage name or a list of stage names, found %s", tomlType(v))
	}
	return in
}

// untracked reads the untracked key: a list of names of flags the stage
// sets in flags or shard.
func (sp *stageParser) untracked(v any, st *Stage) []string {
	if v == nil {
		return nil
	}
	k := sp.key("untracked")
	list, ok := v.([]any)
	if !ok {
		sp.fail(k, `want a list of flag names like ["log"], found %s`, tomlType(v))
		return nil
	}
	var names []string
	for _, w := range list {
		s, ok := w.(string)
		if !ok {
			sp.fail(k, "want a list of flag names, found %s in it", tomlType(w))
			return nil
		}
		set := slices.ContainsFunc(st.Flags, func(p Param) bool { return p.Name == s }) ||
			slices.ContainsFunc(st.Shard, func(a ShardAxis) bool { return a.Name == s })
		if !set {
			sp.fail(k, "--%s is not set in the stage's flags or shard", s)
			return nil
		}
		names = append(names, s)
	}
	return names
}
