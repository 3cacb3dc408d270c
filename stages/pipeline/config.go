package pipeline

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Config is a parsed pipeline.toml.
type Config struct {
	File    string   // the config file as named by the caller
	Dir     string   // absolute directory of the config file: stages run here
	DataDir string   // absolute root of the stage outputs
	Stages  []*Stage // in file order

	// Resources are the defaults of every stage, from [resources] over
	// DefaultResources.
	Resources Resources
	// Slurm holds the [slurm] table.
	Slurm SlurmConfig

	keys *keyIndex
}

// Stage is one named stage of the config: a binary, its flags, its inputs
// and optionally the parameter lists it fans out over.
type Stage struct {
	Name    string
	Run     []string    // binary name, then subcommand words
	Flags   []Param     // in file order
	Inputs  []Input     // in file order
	Shard   []ShardAxis // in file order; empty if the stage does not fan out
	Line    int         // line of the stage's table
	RunLine int         // line of its run key

	// Resources are what each instance asks a batch scheduler for: its
	// [stage.NAME.resources] over the config's defaults.
	Resources Resources
}

// Param is one command-line flag with its value as written on the command line.
type Param struct {
	Name  string
	Value string // true/false for booleans; lists are comma-joined
	Bool  bool
}

// Arg renders p as one argument: --name=value, or --name for a true boolean.
func (p Param) Arg() string {
	if p.Bool && p.Value == "true" {
		return "--" + p.Name
	}
	return "--" + p.Name + "=" + p.Value
}

// ShardAxis is one flag a stage fans out over, with its values in order.
type ShardAxis struct {
	Name   string
	Values []Param
}

// Input passes the output directory of other stages to a flag. A list input
// (List) repeats the flag once per upstream instance.
type Input struct {
	Flag string
	From []string // upstream stage names
	List bool
	Line int
}

// ConfigError is a mistake in the config file, located by line and key.
type ConfigError struct {
	File string // config file
	Line int    // 1-based, 0 if unknown
	Key  string // dotted key, e.g. stage.models.flgs
	Msg  string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": " + e.Key)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

func (c *Config) errorf(key []string, format string, args ...any) *ConfigError {
	return &ConfigError{
		File: c.File,
		Line: c.keys.line(key...),
		Key:  toml.Key(key).String(),
		Msg:  fmt.Sprintf(format, args...),
	}
}

// rawConfig mirrors the file. Values that may take several types are decoded
// into any and checked by hand so errors can say what was expected.
type rawConfig struct {
	Data      any                 `toml:"data"`
	Resources map[string]any      `toml:"resources"`
	Slurm     map[string]any      `toml:"slurm"`
	Stage     map[string]rawStage `toml:"stage"`
}

type rawStage struct {
	Run       any            `toml:"run"`
	Flags     map[string]any `toml:"flags"`
	Inputs    map[string]any `toml:"inputs"`
	Shard     map[string]any `toml:"shard"`
	Resources map[string]any `toml:"resources"`
}

var (
	stageKeys = []string{"run", "flags", "inputs", "shard", "resources"}
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
)

// LoadConfig reads and checks the config file at path.
func LoadConfig(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pipeline config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("pipeline config: %w", err)
	}
	return ParseConfig(path, filepath.Dir(abs), src)
}

// ParseConfig parses and checks a config. name is used in error messages;
// relative paths in the config resolve against dir. Every mistake found is
// reported as a *ConfigError; several are joined with errors.Join.
func ParseConfig(name, dir string, src []byte) (*Config, error) {
	var raw rawConfig
	md, err := toml.Decode(string(src), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ConfigError{File: name, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		return nil, &ConfigError{File: name, Msg: err.Error()}
	}
	c := &Config{File: name, Dir: dir, keys: indexKeys(string(src))}
	var errs []error
	fail := func(e *ConfigError) { errs = append(errs, e) }

	undecoded := make(map[string]bool)
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
	}
	for _, k := range md.Undecoded() {
		parent := k[:len(k)-1]
		if len(parent) > 0 && undecoded[toml.Key(parent).String()] {
			continue // report only the outermost unknown key
		}
		if isAnyValued(parent) {
			continue // a table where a plain value belongs: reported below
		}
		switch {
		case len(k) == 1:
			fail(c.errorf(k, "unknown key (want data, [resources], [slurm] or [stage.NAME])"))
		case len(k) == 3 && k[0] == "stage":
			fail(c.errorf(k, "unknown key (want one of %s)", strings.Join(stageKeys, ", ")))
		default:
			fail(c.errorf(k, "unknown key"))
		}
	}

	c.DataDir = filepath.Join(dir, "data")
	switch v := raw.Data.(type) {
	case nil:
	case string:
		if v == "" {
			fail(c.errorf([]string{"data"}, "must not be empty"))
		} else if filepath.IsAbs(v) {
			c.DataDir = filepath.Clean(v)
		} else {
			c.DataDir = filepath.Join(dir, v)
		}
	default:
		fail(c.errorf([]string{"data"}, "want a directory name, found %s", tomlType(v)))
	}

	var rerrs, serrs []error
	c.Resources, rerrs = c.parseResources(DefaultResources, raw.Resources, md, "resources")
	c.Slurm, serrs = c.parseSlurm(raw.Slurm, md)
	errs = append(append(errs, rerrs...), serrs...)

	// Stages in file order: the decoder's maps lose it, the metadata keeps it.
	// A stage may be defined only implicitly (by [stage.x.shard], or dotted
	// keys), so take every name that appears under stage.
	seen := make(map[string]bool)
	for _, k := range md.Keys() {
		if len(k) < 2 || k[0] != "stage" || seen[k[1]] {
			continue
		}
		name := k[1]
		seen[name] = true
		rs := raw.Stage[name]
		st, serrs := c.parseStage(name, rs, md)
		errs = append(errs, serrs...)
		c.Stages = append(c.Stages, st)
	}
	if len(c.Stages) == 0 && len(errs) == 0 {
		fail(&ConfigError{File: name, Msg: "no stages: add a [stage.NAME] table"})
	}
	if len(errs) == 0 {
		errs = append(errs, c.checkInputs()...)
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b error) int {
			return lineOf(a) - lineOf(b)
		})
		return nil, errors.Join(errs...)
	}
	return c, nil
}

func lineOf(err error) int {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce.Line
	}
	return 0
}

// isAnyValued reports whether key names a value decoded into an interface,
// whose sub-keys the decoder leaves undecoded.
func isAnyValued(key toml.Key) bool {
	switch {
	case len(key) == 3 && key[0] == "stage" && key[2] == "run":
		return true
	case len(key) == 4 && key[0] == "stage" && slices.Contains(stageKeys[1:], key[2]):
		return true
	case len(key) == 1 && key[0] == "data":
		return true
	case len(key) == 2 && (key[0] == "resources" || key[0] == "slurm"):
		return true
	}
	return false
}

// keysUnder returns the names directly under prefix in file order.
func keysUnder(md toml.MetaData, prefix ...string) []string {
	var names []string
	for _, k := range md.Keys() {
		if len(k) == len(prefix)+1 && slices.Equal(k[:len(prefix)], prefix) {
			names = append(names, k[len(prefix)])
		}
	}
	return names
}

func (c *Config) parseStage(name string, rs rawStage, md toml.MetaData) (*Stage, []error) {
	var errs []error
	fail := func(e *ConfigError) { errs = append(errs, e) }
	key := func(parts ...string) []string { return append([]string{"stage", name}, parts...) }

	st := &Stage{Name: name, Line: c.keys.line(key()...), RunLine: c.keys.line(key("run")...)}
	if !nameRE.MatchString(name) {
		fail(c.errorf(key(), "stage name must be letters, digits, '-' or '_'"))
	}

	switch v := rs.Run.(type) {
	case nil:
		fail(c.errorf(key(), `missing run = ["binary", "subcommand"...]`))
	case string:
		st.Run = strings.Fields(v)
	case []any:
		for _, w := range v {
			s, ok := w.(string)
			if !ok {
				fail(c.errorf(key("run"), "want a list of strings, found %s in it", tomlType(w)))
				break
			}
			st.Run = append(st.Run, s)
		}
	default:
		fail(c.errorf(key("run"), `want a list of strings like ["sample-model", "ising"], found %s`, tomlType(v)))
	}
	if rs.Run != nil && len(errs) == 0 {
		if len(st.Run) == 0 {
			fail(c.errorf(key("run"), "must name a binary"))
		} else if !nameRE.MatchString(st.Run[0]) {
			fail(c.errorf(key("run"), "binary %q must be a plain name of a binary in the bin directory", st.Run[0]))
		}
	}

	used := make(map[string]string) // flag name -> where it is set
	claim := func(flag string, where []string) bool {
		if flag == "out" {
			fail(c.errorf(where, "--out is set by the pipeline"))
			return false
		}
		if !nameRE.MatchString(flag) {
			fail(c.errorf(where, "flag name must be letters, digits, '-' or '_'"))
			return false
		}
		if prev, ok := used[flag]; ok {
			fail(c.errorf(where, "flag --%s is already set by %s", flag, prev))
			return false
		}
		used[flag] = toml.Key(where).String()
		return true
	}

	for _, f := range keysUnder(md, key("flags")...) {
		k := key("flags", f)
		if !claim(f, k) {
			continue
		}
		p, err := param(f, rs.Flags[f])
		if err != nil {
			fail(c.errorf(k, "%v", err))
			continue
		}
		st.Flags = append(st.Flags, p)
	}

	for _, f := range keysUnder(md, key("shard")...) {
		k := key("shard", f)
		if !claim(f, k) {
			continue
		}
		list, ok := rs.Shard[f].([]any)
		if !ok || len(list) == 0 {
			fail(c.errorf(k, "want a non-empty list of values to fan out over, found %s", tomlType(rs.Shard[f])))
			continue
		}
		axis := ShardAxis{Name: f}
		seen := make(map[string]bool)
		for _, v := range list {
			p, err := param(f, v)
			if err == nil && (p.Value == "" || strings.ContainsAny(p.Value, `/\,=`+"\x00") || strings.HasPrefix(p.Value, ".")) {
				err = fmt.Errorf("value %q cannot be part of a directory name", p.Value)
			}
			if err == nil && seen[p.Value] {
				err = fmt.Errorf("value %s appears twice", p.Value)
			}
			if err != nil {
				fail(c.errorf(k, "%v", err))
				break
			}
			seen[p.Value] = true
			axis.Values = append(axis.Values, p)
		}
		st.Shard = append(st.Shard, axis)
	}

	var rerrs []error
	st.Resources, rerrs = c.parseResources(c.Resources, rs.Resources, md, key("resources")...)
	errs = append(errs, rerrs...)

	for _, f := range keysUnder(md, key("inputs")...) {
		k := key("inputs", f)
		if !claim(f, k) {
			continue
		}
		in := Input{Flag: f, Line: c.keys.line(k...)}
		switch v := rs.Inputs[f].(type) {
		case string:
			in.From = []string{v}
		case []any:
			in.List = true
			for _, w := range v {
				s, ok := w.(string)
				if !ok {
					fail(c.errorf(k, "want a stage name or a list of stage names, found %s in the list", tomlType(w)))
					in.From = nil
					break
				}
				in.From = append(in.From, s)
			}
			if len(v) == 0 {
				fail(c.errorf(k, "empty list of stages"))
			}
		default:
			fail(c.errorf(k, "want a stage name or a list of stage names, found %s", tomlType(v)))
		}
		if in.From != nil {
			st.Inputs = append(st.Inputs, in)
		}
	}
	return st, errs
}

// param renders a flag value from the config.
func param(name string, v any) (Param, error) {
	p := Param{Name: name}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			ep, err := param(name, e)
			if err != nil {
				return p, err
			}
			if _, isList := e.([]any); isList {
				return p, errors.New("nested lists cannot be written as a flag")
			}
			parts[i] = ep.Value
		}
		p.Value = strings.Join(parts, ",")
		return p, nil
	case string:
		p.Value = x
	case int64:
		p.Value = strconv.FormatInt(x, 10)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return p, fmt.Errorf("%v cannot be written as a flag", x)
		}
		p.Value = strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		p.Value = strconv.FormatBool(x)
		p.Bool = true
	default:
		return p, fmt.Errorf("want a string, number, boolean or list, found %s", tomlType(v))
	}
	return p, nil
}

func tomlType(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	default:
		return "a date or time"
	}
}

// checkInputs reports dangling inputs and dependency cycles.
func (c *Config) checkInputs() []error {
	byName := make(map[string]*Stage, len(c.Stages))
	for _, s := range c.Stages {
		byName[s.Name] = s
	}
	var errs []error
	for _, s := range c.Stages {
		for _, in := range s.Inputs {
			for _, from := range in.From {
				if byName[from] == nil {
					errs = append(errs, c.errorf([]string{"stage", s.Name, "inputs", in.Flag},
						"no stage named %q (stages: %s)", from, strings.Join(c.stageNames(), ", ")))
				}
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if _, err := c.order(); err != nil {
		return []error{err}
	}
	return nil
}

func (c *Config) stageNames() []string {
	names := make([]string, len(c.Stages))
	for i, s := range c.Stages {
		names[i] = s.Name
	}
	return names
}

// order returns the stages in dependency order, ties kept in file order.
func (c *Config) order() ([]*Stage, error) {
	byName := make(map[string]*Stage, len(c.Stages))
	for _, s := range c.Stages {
		byName[s.Name] = s
	}
	const (
		unseen = iota
		visiting
		done
	)
	mark := make(map[*Stage]int)
	var order []*Stage
	var path []string
	var visit func(s *Stage, via []string) error
	visit = func(s *Stage, via []string) error {
		switch mark[s] {
		case done:
			return nil
		case visiting:
			i := slices.Index(path, s.Name)
			cycle := append(slices.Clone(path[i:]), s.Name)
			return c.errorf(via, "dependency cycle: %s", strings.Join(cycle, " -> "))
		}
		mark[s] = visiting
		path = append(path, s.Name)
		for _, in := range s.Inputs {
			for _, from := range in.From {
				if err := visit(byName[from], []string{"stage", s.Name, "inputs", in.Flag}); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		mark[s] = done
		order = append(order, s)
		return nil
	}
	for _, s := range c.Stages {
		if err := visit(s, []string{"stage", s.Name}); err != nil {
			return nil, err
		}
	}
	return order, nil
}
