package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// StampName is the file, in a stage's output directory, that marks the
// directory complete. It is written only after the stage exited 0.
const StampName = ".pipeline-stamp.json"

// stampVersion changes whenever the fingerprint recipe changes, so stamps
// of another recipe read as stale rather than silently matching.
const stampVersion = 1

// Stamp records a completed run of an instance.
type Stamp struct {
	Version      int          `json:"version"`
	ID           string       `json:"id"`
	Fingerprint  string       `json:"fingerprint"`
	Binary       string       `json:"binary"`
	BinarySHA256 string       `json:"binary_sha256"`
	Args         []string     `json:"args"`
	Inputs       []StampInput `json:"inputs"`
	// Paths are the files and directories named by flag values, absent in
	// stamps of stages without them. A stamp without the field vouches for
	// no file: a flag that names one makes the instance stale.
	Paths    []StampPath `json:"paths,omitempty"`
	Outputs  []FileSum   `json:"outputs"`
	Started  time.Time   `json:"started"`
	Finished time.Time   `json:"finished"`
	Seconds  float64     `json:"seconds"`
	// CPUSeconds (user + system) and MaxRSSKiB (peak resident set size)
	// are what the stage's process used, as the operating system reported
	// when it exited. They are 0 where the executor could not measure them
	// (and in stamps without the fields); neither enters the fingerprint or
	// the staleness of an instance.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	MaxRSSKiB  int64   `json:"max_rss_kib,omitempty"`
	// Adopted lists the times the stamp was carried over to a new binary
	// by verify instead of being rewritten by a run; Started,
	// Finished and Seconds stay those of the run that made the outputs.
	Adopted []Adoption `json:"adopted,omitempty"`
}

// Adoption records in a stamp that verify carried it over to a new
// binary (see package verify): a sample of the stage rerun with that binary gave the same results.
type Adoption struct {
	At             time.Time `json:"at"`
	PreviousBinary string    `json:"previous_binary_sha256"` // the binary's sum the stamp held before
	Sampled        []string  `json:"sampled"`                // the instances of the stage rerun and compared
}

// StampInput lists the files of one input directory as they were when the
// instance ran.
type StampInput struct {
	Flag  string    `json:"flag"`
	Dir   string    `json:"dir"`
	Files []FileSum `json:"files"`
}

// FileSum identifies the content of one file.
type FileSum struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	SHA256  string `json:"sha256"`
}

// ReadStamp reads the stamp of an output directory; it returns an error
// satisfying errors.Is(err, fs.ErrNotExist) if there is none.
func ReadStamp(dir string) (*Stamp, error) {
	b, err := os.ReadFile(filepath.Join(dir, StampName))
	if err != nil {
		return nil, err
	}
	var s Stamp
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read stamp %s: %w", filepath.Join(dir, StampName), err)
	}
	return &s, nil
}

// writeStamp writes s into dir atomically: a reader sees the old stamp, no
// stamp or the whole new one.
func WriteStamp(dir string, s *Stamp) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, StampName+".tmp*")
	if err != nil {
		return fmt.Errorf("write stamp: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), filepath.Join(dir, StampName))
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write stamp in %s: %w", dir, werr)
	}
	return nil
}

// removeStamp unmarks dir as complete before a stage reruns in it, so a run
// that fails or is killed never leaves a stamp over partial output. It
// also removes the temporary stamps of runs killed while writing one.
func RemoveStamp(dir string) error {
	err := os.Remove(filepath.Join(dir, StampName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stamp: %w", err)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, StampName+".tmp*"))
	for _, t := range tmps {
		os.Remove(t)
	}
	return nil
}

// staleness compares a stamp with the current fingerprint and output files.
// It returns "" if the instance is up to date, else why it is not.
func (h *Judge) staleness(p *Plan, inst *Instance, st *Stamp, fp *Fingerprint) (string, error) {
	var reasons []string
	if st.Version != stampVersion {
		return fmt.Sprintf("stamp format %d, want %d", st.Version, stampVersion), nil
	}
	if st.BinarySHA256 != fp.BinarySum {
		reasons = append(reasons, h.binaryChange(p, fp.Binary))
	}
	if r := argsChange(argsKey(st.Args), fp.Args); r != "" {
		reasons = append(reasons, r)
	}
	if r := inputsChange(st.Inputs, fp.Inputs); r != "" {
		reasons = append(reasons, r)
	}
	if r := pathsChange(st.Paths, fp.Paths); r != "" {
		reasons = append(reasons, r)
	}
	outs, err := h.Outputs(inst.OutDir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", inst.ID, err)
	}
	for _, want := range st.Outputs {
		i := slices.IndexFunc(outs, func(f FileSum) bool { return f.Name == want.Name })
		path := p.Config.Rel(filepath.Join(inst.OutDir, want.Name))
		if i < 0 {
			reasons = append(reasons, "output deleted: "+path)
			break
		}
		if outs[i].SHA256 != want.SHA256 {
			reasons = append(reasons, "output modified: "+path)
			break
		}
	}
	if len(reasons) == 0 && st.Fingerprint != fp.Sum {
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

// Complete marks the output directory of inst complete after its binary,
// judged by fp, exited 0: it writes the stamp, with the times and usage of
// run (Started, Finished, Seconds, CPUSeconds, MaxRSSKiB) and the rest as
// inst, fp and the outputs are now.
func (h *Judge) Complete(p *Plan, inst *Instance, fp *Fingerprint, run Stamp) error {
	h.forget(inst.OutDir)
	outs, err := h.Outputs(inst.OutDir)
	if err == nil {
		fp, err = afterRun(p, inst, fp)
	}
	if err == nil {
		st := run
		st.Version, st.ID, st.Fingerprint = stampVersion, inst.ID, fp.Sum
		st.Binary, st.BinarySHA256 = p.Config.Rel(fp.Binary), fp.BinarySum
		st.Args, st.Inputs, st.Paths, st.Outputs = inst.Args, fp.Inputs, fp.Paths, outs
		err = WriteStamp(inst.OutDir, &st)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", inst.ID, err)
	}
	return nil
}

// afterRun returns fp with the files and directories named by flags as
// they are now that the stage has run: a directory the stage writes into
// (--uai-out) is then recorded with what it wrote, so the instance is up
// to date afterwards; files it only reads are as they were.
func afterRun(p *Plan, inst *Instance, fp *Fingerprint) (*Fingerprint, error) {
	paths, err := NewJudge().flagPaths(p.Config, inst) // a fresh Judge: the stage may have rewritten them
	if err != nil {
		return nil, err
	}
	after := *fp
	after.Paths = paths
	after.Sum = after.digest()
	return &after, nil
}

// BinaryOnly reports whether st, current in every respect but the binary's
// sum, would hold: the instance's flags, inputs and outputs are those it
// recorded, and only the binary changed.
func (h *Judge) BinaryOnly(p *Plan, inst *Instance, st *Stamp, fp *Fingerprint) (bool, error) {
	if st.Version != stampVersion || st.BinarySHA256 == fp.BinarySum {
		return false, nil
	}
	c := *st
	c.BinarySHA256, c.Fingerprint = fp.BinarySum, fp.Sum
	reason, err := h.staleness(p, inst, &c, fp)
	return reason == "", err
}
