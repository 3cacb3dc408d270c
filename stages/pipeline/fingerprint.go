package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// fingerprint is what decides whether an instance must rerun.
type fingerprint struct {
	binary    string // path
	binarySum string
	args      []string // without --out
	inputs    []StampInput
	sum       string
}

// argsKey drops the output directory from args: where the output goes is
// not part of what it is.
func argsKey(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if !strings.HasPrefix(a, "--out=") {
			out = append(out, a)
		}
	}
	return out
}

func (h *hasher) fingerprint(p *Plan, inst *Instance, binary string) (*fingerprint, error) {
	bs, err := h.file(binary, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: binary: %w", inst.ID, err)
	}
	fp := &fingerprint{binary: binary, binarySum: bs.SHA256, args: argsKey(inst.Args)}
	for _, in := range inst.Inputs {
		files, err := h.dir(in.From.OutDir)
		if err != nil {
			return nil, fmt.Errorf("%s: input --%s: %w", inst.ID, in.Flag, err)
		}
		fp.inputs = append(fp.inputs, StampInput{Flag: in.Flag, Dir: p.Config.rel(in.From.OutDir), Files: files})
	}
	d := sha256.New()
	fmt.Fprintf(d, "pipeline fingerprint v%d\nbinary %s\n", stampVersion, fp.binarySum)
	for _, a := range fp.args {
		fmt.Fprintf(d, "arg %d %s\n", len(a), a)
	}
	for _, in := range fp.inputs {
		fmt.Fprintf(d, "input %s %d %s\n", in.Flag, len(in.Dir), in.Dir)
		for _, f := range in.Files {
			fmt.Fprintf(d, "file %d %s %s\n", len(f.Name), f.Name, f.SHA256)
		}
	}
	fp.sum = hex.EncodeToString(d.Sum(nil))
	return fp, nil
}

// staleness compares a stamp with the current fingerprint and output files.
// It returns "" if the instance is up to date, else why it is not.
func (h *hasher) staleness(p *Plan, inst *Instance, st *Stamp, fp *fingerprint) (string, error) {
	var reasons []string
	if st.Version != stampVersion {
		return fmt.Sprintf("stamp format %d, want %d", st.Version, stampVersion), nil
	}
	if st.BinarySHA256 != fp.binarySum {
		reasons = append(reasons, "binary changed")
	}
	if r := argsChange(argsKey(st.Args), fp.args); r != "" {
		reasons = append(reasons, r)
	}
	if r := inputsChange(st.Inputs, fp.inputs); r != "" {
		reasons = append(reasons, r)
	}
	outs, err := h.dir(inst.OutDir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", inst.ID, err)
	}
	for _, want := range st.Outputs {
		i := slices.IndexFunc(outs, func(f FileSum) bool { return f.Name == want.Name })
		path := p.Config.rel(filepath.Join(inst.OutDir, want.Name))
		if i < 0 {
			reasons = append(reasons, "output deleted: "+path)
			break
		}
		if outs[i].SHA256 != want.SHA256 {
			reasons = append(reasons, "output modified: "+path)
			break
		}
	}
	if len(reasons) == 0 && st.Fingerprint != fp.sum {
		reasons = append(reasons, "fingerprint changed")
	}
	return strings.Join(reasons, "; "), nil
}

func argsChange(old, cur []string) string {
	if slices.Equal(old, cur) {
		return ""
	}
	var removed, added []string
	for _, a := range old {
		if !slices.Contains(cur, a) {
			removed = append(removed, a)
		}
	}
	for _, a := range cur {
		if !slices.Contains(old, a) {
			added = append(added, a)
		}
	}
	switch {
	case len(removed) == 1 && len(added) == 1:
		return fmt.Sprintf("flags changed: %s -> %s", removed[0], added[0])
	case len(removed) == 0 && len(added) == 0:
		return "flags reordered"
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+strings.Join(added, " "))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed "+strings.Join(removed, " "))
	}
	return "flags changed: " + strings.Join(parts, ", ")
}

func inputsChange(old, cur []StampInput) string {
	if len(old) != len(cur) {
		return "inputs changed"
	}
	for i := range cur {
		o, c := old[i], cur[i]
		if o.Flag != c.Flag || o.Dir != c.Dir {
			return fmt.Sprintf("input --%s now %s", c.Flag, c.Dir)
		}
		for _, f := range c.Files {
			j := slices.IndexFunc(o.Files, func(g FileSum) bool { return g.Name == f.Name })
			switch {
			case j < 0:
				return "input added: " + filepath.Join(c.Dir, f.Name)
			case o.Files[j].SHA256 != f.SHA256:
				return "input changed: " + filepath.Join(c.Dir, f.Name)
			}
		}
		for _, f := range o.Files {
			if !slices.ContainsFunc(c.Files, func(g FileSum) bool { return g.Name == f.Name }) {
				return "input removed: " + filepath.Join(c.Dir, f.Name)
			}
		}
	}
	return ""
}
