package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/pipeline/runner"
	"github.com/renn-go/renn/stages/pipeline/verify"
)

type verifyCmd struct {
	configFlag
	Sample  int      `default:"1" placeholder:"K" help:"Rerun the K eligible instances of each stage whose cached runs were the shortest."`
	Cover   []string `sep:"none" placeholder:"KEY" help:"Also rerun, for every value of this shard key (such as method), the cheapest eligible instance with that value: one binary serves several code paths. Repeat for several keys."`
	Only    []string `sep:"none" placeholder:"NAME" help:"Verify only this stage (or instance). Repeat for several."`
	Jobs    int      `short:"j" default:"0" help:"Samples run at once (0: number of CPUs)."`
	DryRun  bool     `name:"dry-run" short:"n" help:"Build the binaries, then print which instances are eligible and which would be rerun; run nothing."`
	Bin     string   `type:"path" placeholder:"DIR" help:"Use the prebuilt stage binaries in DIR instead of building them."`
	NoBuild bool     `name:"no-build" help:"Do not build: use the binaries already in bin/ of the module."`
	Tol     float64  `default:"0" help:"Adopt a stage when its sample's floats differ from the cached ones by at most tol relative to the larger magnitude (absolutely below magnitude 1), as compare-outputs --tol; 0: bit for bit. For a change that only reorders sums, such as a new contraction order of exact inference."`
}

// Validate makes a negative --jobs a usage error (exit 2).
func (v *verifyCmd) Validate() error {
	if v.Jobs < 0 {
		return fmt.Errorf("--jobs %d, want >= 0 (0: number of CPUs)", v.Jobs)
	}
	if !(v.Tol >= 0) || math.IsInf(v.Tol, 1) {
		return fmt.Errorf("--tol %v, want a finite number >= 0 (0: bit for bit)", v.Tol)
	}
	return nil
}

func (v *verifyCmd) Run(ctx context.Context, stdio cli.IO) error {
	return exitError(v.run(ctx, stdio.Out, stdio.Err))
}

func (v *verifyCmd) run(ctx context.Context, stdout, stderr io.Writer) error {
	if v.Sample < 1 {
		return usageError{errors.New("--sample must be at least 1: a stage is adopted only on the evidence of a rerun")}
	}
	plan, root, binDir, err := loadWithBin(v.Config, v.Bin)
	if err != nil {
		return err
	}
	rn := &runner.Runner{BinDir: binDir, Jobs: v.Jobs, Only: v.Only}
	opts := verify.Options{Sample: v.Sample, Cover: v.Cover, Tol: v.Tol}
	if err := verify.Check(rn, plan, opts); err != nil {
		if errors.Is(err, verify.ErrUnknownShardKey) {
			return usageError{err}
		}
		return err
	}
	// Even a dry run builds the binaries, which a run may be using.
	lock, err := runner.LockData(plan.Config)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	logOut := setLogger(rn, stderr, !v.DryRun)
	// Unlike run --dry-run, a dry run builds: which instances are stale
	// only because of their binary depends on the new binaries.
	if v.Bin == "" && !v.NoBuild {
		if err := buildBinaries(ctx, rn, plan, root, binDir, logOut); err != nil {
			return err
		}
	} else if err := plan.CheckBinaries(binDir, ""); err != nil {
		return err
	}
	vp, err := verify.NewPlan(rn, plan, opts)
	if err != nil {
		return err
	}
	if v.DryRun {
		vp.WritePlan(stdout)
		fmt.Fprintln(stdout, "dry run: nothing ran")
		return nil
	}
	err = verify.Run(ctx, rn, vp)
	vp.WriteSummary(stdout)
	return err
}
