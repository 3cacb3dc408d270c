package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	// DefaultResources().
	Resources Resources
	// Slurm holds the [slurm] table.
	Slurm Slurm

	keys *keyIndex
}

// Stage is one named stage of the config: a binary, its flags, its inputs
// and optionally the parameter lists it fans out over.
type Stage struct {
	Name   string
	Run    []string    // binary name, then subcommand words
	Flags  []Param     // in file order
	Inputs []Input     // in file order
	Shard  []ShardAxis // in file order; empty if the stage does not fan out
	// Untracked are flags whose values are not fingerprinted even when
	// they name files or directories: ones the stage writes into, such as
	// a log directory.
	Untracked []string
	Line      int // line of the stage's table
	RunLine   int // line of its run key

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

// Error is a mistake in the config file, located by line and key.
type Error struct {
	File string // config file
	Line int    // 1-based, 0 if unknown
	Key  string // dotted key, e.g. stage.models.flgs
	Msg  string
}

func (e *Error) Error() string {
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

// Errorf returns the mistake at key (its parts, e.g. "stage", "a",
// "inputs", "in"), located at the line that defines it or its nearest
// defined ancestor.
func (c *Config) Errorf(key []string, format string, args ...any) *Error {
	return &Error{
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
	Untracked any            `toml:"untracked"`
}

var (
	stageKeys = []string{"run", "flags", "inputs", "shard", "resources", "untracked"}
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
)

// Load reads and checks the config file at path.
func Load(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pipeline config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("pipeline config: %w", err)
	}
	return Parse(path, filepath.Dir(abs), src)
}

// Parse parses and checks a config. name is used in error messages;
// relative paths in the config resolve against dir. Every mistake found is
// reported as a *Error; several are joined with errors.Join.
func Parse(name, dir string, src []byte) (*Config, error) {
	var raw rawConfig
	md, err := toml.Decode(string(src), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{File: name, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		return nil, &Error{File: name, Msg: err.Error()}
	}
	c := &Config{File: name, Dir: dir, keys: indexKeys(string(src))}
	errs := c.unknownKeys(md)
	errs = append(errs, c.parseData(raw.Data)...)
	var rerrs, serrs []error
	c.Resources, rerrs = c.parseResources(DefaultResources(), raw.Resources, md, "resources")
	c.Slurm, serrs = c.parseSlurm(raw.Slurm, md)
	errs = append(append(errs, rerrs...), serrs...)
	errs = append(errs, c.parseStages(raw.Stage, md)...)
	if len(c.Stages) == 0 && len(errs) == 0 {
		errs = append(errs, &Error{File: name, Msg: "no stages: add a [stage.NAME] table"})
	}
	if len(errs) == 0 {
		errs = c.checkInputs()
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b error) int {
			return lineOf(a) - lineOf(b)
		})
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// unknownKeys reports the keys the decoder did not take, each at its
// outermost unknown table.
func (c *Config) unknownKeys(md toml.MetaData) []error {
	var errs []error
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
			continue // a table where a plain value belongs: reported by its parser
		}
		switch {
		case len(k) == 1:
			errs = append(errs, c.Errorf(k, "unknown key (want data, [resources], [slurm] or [stage.NAME])"))
		case len(k) == 3 && k[0] == "stage":
			errs = append(errs, c.Errorf(k, "unknown key (want one of %s)", strings.Join(stageKeys, ", ")))
		default:
			errs = append(errs, c.Errorf(k, "unknown key"))
		}
	}
	return errs
}

// parseData sets DataDir from the data key, data/ beside the config by
// default.
func (c *Config) parseData(data any) []error {
	c.DataDir = filepath.Join(c.Dir, "data")
	switch v := data.(type) {
	case nil:
	case string:
		if v == "" {
			return []error{c.Errorf([]string{"data"}, "must not be empty")}
		}
		if filepath.IsAbs(v) {
			c.DataDir = filepath.Clean(v)
		} else {
			c.DataDir = filepath.Join(c.Dir, v)
		}
	default:
		return []error{c.Errorf([]string{"data"}, "want a directory name, found %s", tomlType(v))}
	}
	return nil
}

// parseStages reads the stages in file order: the decoder's maps lose it,
// the metadata keeps it. A stage may be defined only implicitly (by
// [stage.x.shard], or dotted keys), so every name that appears under stage
// is one.
func (c *Config) parseStages(raw map[string]rawStage, md toml.MetaData) []error {
	var errs []error
	seen := make(map[string]bool)
	for _, k := range md.Keys() {
		if len(k) < 2 || k[0] != "stage" || seen[k[1]] {
			continue
		}
		name := k[1]
		seen[name] = true
		st, serrs := c.parseStage(name, raw[name], md)
		errs = append(errs, serrs...)
		c.Stages = append(c.Stages, st)
	}
	return errs
}

func lineOf(err error) int {
	var ce *Error
	if errors.As(err, &ce) {
		return ce.Line
	}
	return 0
}

// isAnyValued reports whether key names a value decoded into an interface,
// whose sub-keys the decoder leaves undecoded.
func isAnyValued(key toml.Key) bool {
	switch {
	case len(key) == 3 && key[0] == "stage" && (key[2] == "run" || key[2] == "untracked"):
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

// Rel writes path relative to the config directory when it lies inside it,
// so command lines (and the fingerprints made of them) do not depend on
// where the project is checked out.
func (c *Config) Rel(path string) string {
	r, err := filepath.Rel(c.Dir, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return path
	}
	return r
}

// Abs resolves a path from the config the way a stage, which runs in the
// config's directory, does.
func (c *Config) Abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(c.Dir, path)
}
