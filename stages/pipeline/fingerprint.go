package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Fingerprint is what decides whether an instance must rerun: what its
// stamp records of its binary, arguments and inputs, as they are now.
type Fingerprint struct {
	Binary    string // path
	BinarySum string
	Args      []string // without --out
	Inputs    []StampInput
	Paths     []StampPath // files and directories named by flags
	Sum       string      // the digest of all the above
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

// Fingerprint returns the fingerprint of inst run with binary, on the files
// as they are now.
func (h *Judge) Fingerprint(p *Plan, inst *Instance, binary string) (*Fingerprint, error) {
	bs, err := h.file(binary, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: binary: %w", inst.ID, err)
	}
	fp := &Fingerprint{Binary: binary, BinarySum: bs.SHA256, Args: argsKey(inst.Args)}
	for _, in := range inst.Inputs {
		files, err := h.Outputs(in.From.OutDir)
		if err != nil {
			return nil, fmt.Errorf("%s: input --%s: %w", inst.ID, in.Flag, err)
		}
		fp.Inputs = append(fp.Inputs, StampInput{Flag: in.Flag, Dir: p.Config.Rel(in.From.OutDir), Files: files})
	}
	if fp.Paths, err = h.flagPaths(p.Config, inst); err != nil {
		return nil, err
	}
	fp.Sum = fp.digest()
	return fp, nil
}

// digest is the sum of everything in fp that decides a rerun.
func (fp *Fingerprint) digest() string {
	d := sha256.New()
	fmt.Fprintf(d, "pipeline fingerprint v%d\nbinary %s\n", stampVersion, fp.BinarySum)
	for _, a := range fp.Args {
		fmt.Fprintf(d, "arg %d %s\n", len(a), a)
	}
	for _, in := range fp.Inputs {
		fmt.Fprintf(d, "input %s %d %s\n", in.Flag, len(in.Dir), in.Dir)
		for _, f := range in.Files {
			fmt.Fprintf(d, "file %d %s %s\n", len(f.Name), f.Name, f.SHA256)
		}
	}
	// Last, and only if there are any: a stamp without flag paths keeps
	// the sum of format 1.
	for _, sp := range fp.Paths {
		fmt.Fprintf(d, "path %s %t %d %s\n", sp.Flag, sp.Dir, len(sp.Path), sp.Path)
		for _, f := range sp.Files {
			fmt.Fprintf(d, "file %d %s %s\n", len(f.Name), f.Name, f.SHA256)
		}
	}
	return hex.EncodeToString(d.Sum(nil))
}
