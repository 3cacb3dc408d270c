package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// configMistakes are configs with one mistake each, where it is reported
// and what the message says.
var configMistakes = []struct {
	name string
	src  string
	line int
	key  string
	msg  string
}{
	{"unknown stage key", `
[stage.models]
run = ["sample-model", "ising"]
flgs = { size = 5 }
`, 4, "stage.models.flgs", "unknown key (want one of run, flags, inputs, shard, resources, untracked)"},
	{"unknown top-level key", `datta = "out"
[stage.a]
run = ["x"]
`, 1, "datta", "unknown key"},
	{"unknown key in sub-table", `
[stage.a]
run = ["x"]
[stage.a.shard.extra]
y = 1
`, 4, "stage.a.shard.extra", "want a non-empty list"},
	{"dangling input", `
[stage.models]
run = ["sample-model"]

[stage.exact]
run = ["exact-infer"]
inputs = { models = "nosuch" }
`, 7, "stage.exact.inputs.models", `no stage named "nosuch" (stages: models, exact)`},
	{"dangling input in a list", `
[stage.score]
run = ["score"]
[stage.score.inputs]
truth = "score"
pred = ["score",
        "gone"]
`, 6, "stage.score.inputs.pred", `no stage named "gone"`},
	{"cycle", `
[stage.a]
run = ["x"]
inputs = { in = "b" }
[stage.b]
run = ["x"]
inputs = { in = "a" }
`, 7, "stage.b.inputs.in", "dependency cycle: a -> b -> a"},
	{"self input", `
[stage.a]
run = ["x"]
inputs.in = "a"
`, 4, "stage.a.inputs.in", "dependency cycle: a -> a"},
	{"missing run", `
[stage.a]
flags = { x = 1 }
`, 2, "stage.a", "missing run"},
	{"run of wrong type", `
[stage.a]
run = 3
`, 3, "stage.a.run", "want a list of strings"},
	{"run with a path", `
[stage.a]
run = ["../evil"]
`, 3, "stage.a.run", "plain name"},
	{"table as flag value", `
[stage.a]
run = ["x"]
flags = { size = { a = 1 } }
`, 4, "stage.a.flags.size", "want a string, number, boolean or list, found a table"},
	{"flag set twice", `
[stage.a]
run = ["x"]
flags = { size = 5 }
shard = { size = [3, 5] }
`, 5, "stage.a.shard.size", "flag --size is already set by stage.a.flags.size"},
	{"out is reserved", `
[stage.a]
run = ["x"]
flags = { out = "elsewhere" }
`, 4, "stage.a.flags.out", "--out is set by the pipeline"},
	{"shard not a list", `
[stage.a]
run = ["x"]
[stage.a.shard]
size = 5
`, 5, "stage.a.shard.size", "want a non-empty list"},
	{"shard value unfit for a directory", `
[stage.a]
run = ["x"]
shard.graph = ["grid", "a/b"]
`, 4, "stage.a.shard.graph", `value "a/b" cannot be part of a directory name`},
	{"syntax error", `
[stage.a]
run = ["x"
`, 3, "stage.a.run", "expected a comma"},
	{"no stages", `data = "d"`, 0, "", "no stages"},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range configMistakes {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("pipeline.toml", "/project", []byte(tt.src))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *Error", err)
			}
			if ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("got line %d key %q msg %q\nwant line %d key %q msg containing %q", ce.Line, ce.Key, ce.Msg, tt.line, tt.key, tt.msg)
			}
			if tt.line > 0 && !strings.HasPrefix(err.Error(), "pipeline.toml:") {
				t.Errorf("message %q does not start with file:line", err)
			}
		})
	}
}

func TestParseReportsEveryMistake(t *testing.T) {
	src := `
[stage.a]
run = ["x"]
flgs = 1
[stage.b]
run = ["x"]
inptus = { in = "a" }
`
	_, err := Parse("p.toml", "/p", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"p.toml:4: stage.a.flgs: unknown key", "p.toml:7: stage.b.inptus: unknown key"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestParseValues(t *testing.T) {
	src := `
data = "out"
[stage.s]
run = "score --verbose"
flags = { name = "x y", n = -3, rate = 1e-3, g = 1.0, on = true, off = false, methods = ["mf", "bp"] }
inputs = { pred = ["t", "t"], truth = "t" }
[stage.t]
run = ["t"]
`
	c, err := Parse("p.toml", "/p", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != "/p/out" {
		t.Errorf("DataDir = %s", c.DataDir)
	}
	if names := c.StageNames(); !slices.Equal(names, []string{"s", "t"}) {
		t.Errorf("stages %v, want file order", names)
	}
	s := c.Stages[0]
	if !slices.Equal(s.Run, []string{"score", "--verbose"}) || s.Line != 3 || s.RunLine != 4 {
		t.Errorf("run %q line %d run line %d", s.Run, s.Line, s.RunLine)
	}
	var args []string
	for _, f := range s.Flags {
		args = append(args, f.Arg())
	}
	want := []string{"--name=x y", "--n=-3", "--rate=0.001", "--g=1", "--on", "--off=false", "--methods=mf,bp"}
	if !slices.Equal(args, want) {
		t.Errorf("flags\n%q\nwant\n%q", args, want)
	}
	if len(s.Inputs) != 2 || !s.Inputs[0].List || s.Inputs[1].List || s.Inputs[0].Flag != "pred" {
		t.Errorf("inputs %+v", s.Inputs)
	}
}

func TestParseImplicitTables(t *testing.T) {
	src := `
stage.a.run = ["x"]
stage.a.flags.v = 1
[stage.b.shard]
n = [1, 2]
[stage.b]
run = ["y"]
inputs.in = "a"
`
	c, err := Parse("p.toml", "/p", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if names := c.StageNames(); !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("stages %v, want [a b]", names)
	}
	a, b := c.Stages[0], c.Stages[1]
	if a.Line != 2 || a.RunLine != 2 || len(a.Flags) != 1 || a.Flags[0].Arg() != "--v=1" {
		t.Errorf("stage a: %+v", a)
	}
	if b.Line != 4 || b.RunLine != 7 || len(b.Shard) != 1 || len(b.Shard[0].Values) != 2 || len(b.Inputs) != 1 {
		t.Errorf("stage b: %+v", b)
	}
}

func TestKeyLines(t *testing.T) {
	src := `# comment with key = 1
top = "a # not a comment"   # comment
multi = """
line
[not.a.table]
"""
arr = [
  1, # c
  { inside = 2 },
]
[stage.one]   # header
run = ['x', "y"]
flags = { a = 1, "quoted.key" = { deep = true }, b = [1,
  2] }
inputs.models = "m"
[[list]]
x = 1
"esc\u0041ped" . 'lit.eral' = 2
`
	ix := indexKeys(src)
	tests := []struct {
		key  []string
		line int
	}{
		{[]string{"top"}, 2},
		{[]string{"multi"}, 3},
		{[]string{"arr"}, 7},
		{[]string{"not", "a", "table"}, 0},
		{[]string{"stage"}, 11},
		{[]string{"stage", "one"}, 11},
		{[]string{"stage", "one", "run"}, 12},
		{[]string{"stage", "one", "flags", "a"}, 13},
		{[]string{"stage", "one", "flags", "quoted.key", "deep"}, 13},
		{[]string{"stage", "one", "flags", "b"}, 13},
		{[]string{"stage", "one", "inputs", "models"}, 15},
		{[]string{"stage", "one", "inputs", "other"}, 15}, // nearest defined ancestor
		{[]string{"stage", "one", "nosuch"}, 11},
		{[]string{"list", "x"}, 17},
		{[]string{"list", "escAped", "lit.eral"}, 18}, // escapes read as the decoder reads them
	}
	for _, tt := range tests {
		if got := ix.line(tt.key...); got != tt.line {
			t.Errorf("line(%q) = %d, want %d", tt.key, got, tt.line)
		}
	}
}

func TestUntrackedErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"[stage.a]\nrun = [\"x\"]\nuntracked = \"log\"\n", "want a list of flag names"},
		{"[stage.a]\nrun = [\"x\"]\nflags = { log = \"l\" }\nuntracked = [\"lg\"]\n", "--lg is not set in the stage's flags or shard"},
	}
	for _, tt := range tests {
		_, err := Parse("p.toml", "/p", []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), "stage.a.untracked") || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%q: error %v, want %q at stage.a.untracked", tt.src, err, tt.msg)
		}
	}
}
