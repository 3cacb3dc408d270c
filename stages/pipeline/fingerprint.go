package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// fingerprint is what decides whether an instance must rerun.
type fingerprint struct {
	binary    string // path
	binarySum string
	args      []string // without --out
	inputs    []StampInput
	paths     []StampPath // files and directories named by flags
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
		fp.inputs = append(fp.inputs, StampInput{Flag: in.Flag, Dir: p.Config.Rel(in.From.OutDir), Files: files})
	}
	if fp.paths, err = h.flagPaths(p.Config, inst); err != nil {
		return nil, err
	}
	fp.sum = fp.digest()
	return fp, nil
}

// digest is the sum of everything in fp that decides a rerun.
func (fp *fingerprint) digest() string {
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
	// Added after stamp format 1: absent, it leaves the sums of stamps
	// without flag paths as they were.
	for _, sp := range fp.paths {
		fmt.Fprintf(d, "path %s %t %d %s\n", sp.Flag, sp.Dir, len(sp.Path), sp.Path)
		for _, f := range sp.Files {
			fmt.Fprintf(d, "file %d %s %s\n", len(f.Name), f.Name, f.SHA256)
		}
	}
	return hex.EncodeToString(d.Sum(nil))
}
