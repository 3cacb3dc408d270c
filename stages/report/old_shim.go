package report

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
)

// ReadRunTime reads the stamp of every instance of the plan.
func ReadRunTime(plan *pipeline.Plan) (RunTime, error) {
	var rt RunTime
	var runs []Part
	index := map[string]int{}
	for _, inst := range plan.Instances {
		k, ok := index[inst.Stage.Name]
		if !ok {
			rt.Stages = append(rt.Stages, StageTime{Stage: inst.Stage.Name})
			k = len(rt.Stages) - 1
			index[inst.Stage.Name] = k
		}
		st := &rt.Stages[k]
		st.Instances++
		rt.Instances++
		stamp, err := pipeline.ReadStamp(inst.OutDir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return rt, err
		}
		st.Done++
		rt.Done++
		st.Seconds += stamp.Seconds
		st.Max = max(st.Max, stamp.Seconds)
		rt.Seconds += stamp.Seconds
		if rt.First.IsZero() || stamp.Started.Before(rt.First) {
			rt.First = stamp.Started
		}
		if stamp.Finished.After(rt.Last) {
			rt.Last = stamp.Finished
		}
		runs = append(runs, Part{Start: stamp.Started, End: stamp.Finished, Instances: 1, Seconds: stamp.Seconds})
	}
	rt.Parts = parts(runs)
	return rt, nil
}

// addStatus counts the instances of the plan by their state against the
// binaries in binDir.
func (rt *RunTime) addStatus(plan *pipeline.Plan, binDir string) error {
	sts, err := plan.Status(binDir)
	if err != nil {
		return fmt.Errorf("pipeline status: %w", err)
	}
	rt.States = map[string]int{}
	for _, st := range sts {
		rt.States[st.State.String()]++
		if st.State == pipeline.Stale {
			rt.Stale = append(rt.Stale, st.Instance.ID)
		}
	}
	return nil
}

// splitPrefix splits a plan into the instances of the stages whose names
// begin with prefix and the others.
func splitPrefix(plan *pipeline.Plan, prefix string) (rest, matched *pipeline.Plan) {
	rest, matched = &pipeline.Plan{Config: plan.Config}, &pipeline.Plan{Config: plan.Config}
	for _, inst := range plan.Instances {
		if strings.HasPrefix(inst.Stage.Name, prefix) {
			matched.Instances = append(matched.Instances, inst)
		} else {
			rest.Instances = append(rest.Instances, inst)
		}
	}
	return rest, matched
}

// sectionRunTime says what the instances of a section's stages (names
// beginning with prefix) took, with their status.
func sectionRunTime(rt RunTime, statusErr error, prefix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run time (not counted in the paper's, above): %d of %d instances of the %s* stages have completed", rt.Done, rt.Instances, prefix)
	if rt.Done > 0 {
		fmt.Fprintf(&b, ", in **%s** summed over the instances (one core each), between %s and %s (UTC)", formatDuration(rt.Seconds),
			rt.First.UTC().Format(time.DateTime), rt.Last.UTC().Format(time.DateTime))
	}
	b.WriteString(".")
	switch {
	case statusErr != nil:
		fmt.Fprintf(&b, " (Could not check whether they are current: %v.)", statusErr)
	case len(rt.Stale) > 0:
		fmt.Fprintf(&b, " **Stale** (their binary, flags or inputs changed since they ran): %s.", strings.Join(truncate(rt.Stale, 8), ", "))
	}
	var rows []string
	for _, st := range rt.Stages {
		if st.Seconds >= 60 || st.Done < st.Instances {
			rows = append(rows, fmt.Sprintf("| %s | %d / %d | %s | %s |\n", st.Stage, st.Done, st.Instances, formatDuration(st.Seconds), formatDuration(st.Max)))
		}
	}
	if len(rows) > 0 {
		b.WriteString(" The stages that took a minute or more, or have not finished:\n\n| stage | instances done | summed time | longest instance |\n|---|---:|---:|---:|\n")
		b.WriteString(strings.Join(rows, ""))
	} else {
		b.WriteString("\n")
	}
	return b.String()
}

func shardValue(inst *pipeline.Instance, name string) string {
	for _, p := range inst.Shard {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}
