package report

// The report's view of the runner: the instances of a pipeline config,
// their inputs, flags and stamps, and their status against the stage
// binaries. Nothing else in the package imports stages/pipeline
// or its config.

import (
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// plan is a pipeline config's instances, in dependency order.
type plan struct {
	config string // the config's path, as given
	dir    string // the config's directory (relative data paths start here)
	data   string // the root of the stage outputs
	insts  []*instance
	pp     *pipeline.Plan
	pis    map[*instance]*pipeline.Instance // the runner's own
}

// instance is one run of a stage binary.
type instance = outputs.Instance

// readPlan reads the config at path and plans its instances.
func readPlan(path string) (*plan, error) {
	pp, err := pipeline.Load(path)
	if err != nil {
		return nil, err
	}
	cfg := pp.Config
	p := &plan{config: path, dir: cfg.Dir, data: cfg.DataDir, pp: pp, pis: map[*instance]*pipeline.Instance{}}
	byP := map[*pipeline.Instance]*instance{}
	for _, in := range pp.Instances {
		inst := &instance{ID: in.ID, Stage: in.Stage.Name, OutDir: in.OutDir, Flags: map[string]string{}, Shard: map[string]string{}, Inputs: map[string][]*instance{}}
		if len(in.Stage.Run) > 0 {
			inst.Binary = in.Stage.Run[0]
		}
		for _, f := range in.Stage.Flags {
			inst.Flags[f.Name] = f.Value
		}
		for _, s := range in.Shard {
			inst.Shard[s.Name] = s.Value
		}
		for _, d := range in.Inputs {
			if from := byP[d.From]; from != nil {
				inst.Inputs[d.Flag] = append(inst.Inputs[d.Flag], from)
			}
		}
		byP[in], p.pis[inst] = inst, in
		p.insts = append(p.insts, inst)
	}
	return p, nil
}

// usage is what an instance's process used, from its stamp.
func usage(dir string) (outputs.Usage, error) {
	st, err := pipeline.ReadStamp(dir)
	if err != nil {
		return outputs.Usage{}, err
	}
	return outputs.Usage{Seconds: st.Seconds, CPUSeconds: st.CPUSeconds, MaxRSSKiB: st.MaxRSSKiB}, nil
}

// runTime is a pipeline's run time as the report shows it.
type runTime = pipeline.RunTime

// readRunTime sums the stamps of insts and, unless binDir is empty, counts
// them by state against the binaries in binDir (statusErr says why that
// failed).
func readRunTime(p *plan, insts []*instance, binDir string) (rt runTime, statusErr, err error) {
	pis := make([]*pipeline.Instance, len(insts))
	for i, inst := range insts {
		pis[i] = p.pis[inst]
	}
	return p.pp.RunTime(pis, binDir)
}
