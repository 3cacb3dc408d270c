package runner_test

import (
	"context"
	"log"
	"os"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/config"
	"github.com/renn-go/renn/stages/pipeline/runner"
)

// Running a pipeline on a Slurm cluster: the runner submits every
// out-of-date instance with sbatch and follows the jobs until they end.
// The stage binaries, bin/pipeline among them, must be built first
// (build.Build), and the project must be on a file system the nodes
// mount.
func ExampleSlurm() {
	cfg, err := config.Load("pipeline.toml")
	if err != nil {
		log.Fatal(err)
	}
	plan, err := pipeline.NewPlan(cfg)
	if err != nil {
		log.Fatal(err)
	}
	r := &runner.Runner{
		BinDir: "bin",
		Slurm: &runner.Slurm{
			Partition: cfg.Slurm.Partition, // from [slurm] in the config
			Account:   cfg.Slurm.Account,
			Options:   append(cfg.Slurm.Options, "--qos=short"),
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
