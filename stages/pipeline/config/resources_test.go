package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestResourcesAndSlurmConfig(t *testing.T) {
	src := `
[resources]
cpus = 2
memory = "8g"
time = 90

[slurm]
partition = "short"
account = "renn"
options = ["--qos=low", "--constraint=avx2"]

[stage.a]
run = ["x"]

[stage.b]
run = ["x"]
resources = { memory = 500, time = "2-00:00:00" }
`
	c, err := Parse("p.toml", "/p", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Resources{CPUs: 2, Memory: "8G", Time: "90"}); c.Resources != want || c.Stages[0].Resources != want {
		t.Errorf("defaults %+v, stage a %+v, want %+v", c.Resources, c.Stages[0].Resources, want)
	}
	if want := (Resources{CPUs: 2, Memory: "500M", Time: "2-00:00:00"}); c.Stages[1].Resources != want {
		t.Errorf("stage b %+v, want %+v", c.Stages[1].Resources, want)
	}
	if c.Slurm.Partition != "short" || c.Slurm.Account != "renn" || !slices.Equal(c.Slurm.Options, []string{"--qos=low", "--constraint=avx2"}) {
		t.Errorf("slurm %+v", c.Slurm)
	}

	c, err = Parse("p.toml", "/p", []byte("[stage.a]\nrun = [\"x\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Stages[0].Resources != DefaultResources() || c.Slurm.Partition != "" || c.Slurm.Options != nil {
		t.Errorf("without tables: %+v, %+v", c.Stages[0].Resources, c.Slurm)
	}
}

func TestResourcesErrors(t *testing.T) {
	const stage = "[stage.a]\nrun = [\"x\"]\n"
	tests := []struct {
		name string
		src  string
		line int
		key  string
		msg  string
	}{
		{"zero cpus", "[resources]\ncpus = 0\n" + stage, 2, "resources.cpus", "want a positive whole number of cores, found 0"},
		{"cpus as a string", stage + "resources = { cpus = \"2\" }\n", 3, "stage.a.resources.cpus", `found "2"`},
		{"memory without a number", "[resources]\nmemory = \"lots\"\n" + stage, 2, "resources.memory", `want an amount like "500M"`},
		{"zero memory", "[resources]\nmemory = \"0G\"\n" + stage, 2, "resources.memory", `found "0G"`},
		{"memory as a float", "[resources]\nmemory = 1.5\n" + stage, 2, "resources.memory", "found a float"},
		{"time in Go syntax", stage + "[stage.a.resources]\ntime = \"1h\"\n", 4, "stage.a.resources.time", `want a time limit like "30" (minutes)`},
		{"negative minutes", "[resources]\ntime = -5\n" + stage, 2, "resources.time", "want a positive number of minutes"},
		{"unknown resource", stage + "[stage.a.resources]\ngpus = 1\n", 4, "stage.a.resources.gpus", "unknown key (want one of cpus, memory, time)"},
		{"unknown slurm key", "[slurm]\nqueue = \"q\"\n" + stage, 2, "slurm.queue", "unknown key (want one of partition, account, options)"},
		{"option without a dash", "[slurm]\noptions = [\"qos=low\"]\n" + stage, 2, "slurm.options", `want sbatch options starting with "-"`},
		{"partition with a space", "[slurm]\npartition = \"a b\"\n" + stage, 2, "slurm.partition", `want a partition name, found "a b"`},
		{"top-level typo", "[resource]\ncpus = 1\n" + stage, 1, "resource", "unknown key (want data, [resources], [slurm] or [stage.NAME])"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("pipeline.toml", "/project", []byte(tt.src))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *Error", err)
			}
			if ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("got line %d key %q msg %q\nwant line %d key %q msg containing %q", ce.Line, ce.Key, ce.Msg, tt.line, tt.key, tt.msg)
			}
		})
	}
}
