package pipeline_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
)

func ExampleNewPlan() {
	src := `
[stage.models]
run = ["sample-model", "ising"]
flags = { graph = "grid", count = 10, seed = 1 }
shard = { size = [5, 10], gamma = [1.0] }

[stage.exact]
run = ["exact-infer"]
inputs = { models = "models" }

[stage.score]
run = ["score"]
inputs = { truth = ["exact"] }
`
	cfg, err := config.Parse("pipeline.toml", "/project", []byte(src))
	if err != nil {
		log.Fatal(err)
	}
	plan, err := pipeline.NewPlan(cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, inst := range plan.Instances {
		fmt.Println(inst.ID)
		fmt.Println("   ", inst.Stage.Run[0], strings.Join(inst.Args, " "))
	}
	// Output:
	// models/size=5,gamma=1
	//     sample-model ising --graph=grid --count=10 --seed=1 --size=5 --gamma=1 --out=data/models/size=5,gamma=1
	// models/size=10,gamma=1
	//     sample-model ising --graph=grid --count=10 --seed=1 --size=10 --gamma=1 --out=data/models/size=10,gamma=1
	// exact/size=5,gamma=1
	//     exact-infer --models=data/models/size=5,gamma=1 --out=data/exact/size=5,gamma=1
	// exact/size=10,gamma=1
	//     exact-infer --models=data/models/size=10,gamma=1 --out=data/exact/size=10,gamma=1
	// score
	//     score --truth=data/exact/size=5,gamma=1 --truth=data/exact/size=10,gamma=1 --out=data/score
}
