package pipeline

import (
	"errors"
	"slices"
	"testing"

	"github.com/renn-go/renn/stages/pipeline/config"
)

// parsePlan parses a config said to be /p/p.toml and expands it, failing
// the test on an error.
func parsePlan(t *testing.T, src string) (*config.Config, *Plan) {
	t.Helper()
	cfg, err := config.Parse("p.toml", "/p", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, plan
}

func TestPlanArgs(t *testing.T) {
	src := `
data = "out"
[stage.s]
run = "score --verbose"
flags = { name = "x y", n = -3, rate = 1e-3, g = 1.0, on = true, off = false, methods = ["mf", "bp"] }
inputs = { pred = ["t", "t"], truth = "t" }
[stage.t]
run = ["t"]
`
	_, p := parsePlan(t, src)
	if p.Instances[0].ID != "t" || p.Instances[1].ID != "s" {
		t.Errorf("plan order %s, %s: want t before s", p.Instances[0].ID, p.Instances[1].ID)
	}
	wantArgs := []string{"--verbose", "--name=x y", "--n=-3", "--rate=0.001", "--g=1", "--on", "--off=false", "--methods=mf,bp",
		"--pred=out/t", "--pred=out/t", "--truth=out/t", "--out=out/s"}
	if got := p.Instances[1].Args; !slices.Equal(got, wantArgs) {
		t.Errorf("args\n%q\nwant\n%q", got, wantArgs)
	}
	if deps := p.Instances[1].Deps; len(deps) != 1 || deps[0].ID != "t" {
		t.Errorf("deps %v, want one: t", deps)
	}
}

func TestPlanShardClash(t *testing.T) {
	src := `
[stage.m]
run = ["x"]
shard = { size = [1, 2] }
[stage.e]
run = ["x"]
inputs = { m = "m" }
shard = { size = [3] }
`
	c, err := config.Parse("p.toml", "/p", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlan(c)
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Line != 8 || ce.Key != "stage.e.shard.size" {
		t.Errorf("error %v, want one at line 8, stage.e.shard.size", err)
	}
}
