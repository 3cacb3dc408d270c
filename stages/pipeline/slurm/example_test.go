package slurm_test

import (
	"context"
	"log"
	"os"
	"slices"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/runner"
	"github.com/renn-go/renn/stages/pipeline/slurm"
)

// Running a pipeline on a Slurm cluster: the runner submits every
// out-of-date instance with sbatch and follows the jobs until they end.
// The stage binaries, bin/pipeline among them, must be built first
// (build.Build), and the project must be on a file system the nodes
// mount.
func ExampleCluster() {
	plan, err := pipeline.Load("pipeline.toml")
	if err != nil {
		log.Fatal(err)
	}
	sc := plan.Config.Slurm // from [slurm] in the config
	r := &runner.Runner{
		BinDir: "bin",
		Batch: &slurm.Cluster{
			Partition: sc.Partition,
			Account:   sc.Account,
			Options:   append(slices.Clone(sc.Options), "--qos=short"),
		},
	}
	rep, err := r.Run(context.Background(), plan)
	if rep != nil {
		rep.WriteSummary(os.Stdout)
	}
	if err != nil {
		log.Fatal(err)
	}
}
