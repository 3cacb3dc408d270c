package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// StampName is the file, in a stage's output directory, that marks the
// directory complete. It is written only after the stage exited 0.
const StampName = ".pipeline-stamp.json"

// stampVersion changes whenever the fingerprint recipe changes, so old
// stamps read as stale rather than silently matching.
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
	Outputs      []FileSum    `json:"outputs"`
	Started      time.Time    `json:"started"`
	Finished     time.Time    `json:"finished"`
	Seconds      float64      `json:"seconds"`
	// Adopted lists the times the stamp was carried over to a new binary
	// by Runner.Verify instead of being rewritten by a run; Started,
	// Finished and Seconds stay those of the run that made the outputs.
	Adopted []Adoption `json:"adopted,omitempty"`
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
func writeStamp(dir string, s *Stamp) error {
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
// that fails or is killed never leaves a stamp over partial output.
func removeStamp(dir string) error {
	err := os.Remove(filepath.Join(dir, StampName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stamp: %w", err)
	}
	return nil
}

// hasher computes sha256 sums of files, remembering them by path, size and
// modification time so one run hashes each file at most once.
type hasher struct {
	mu    sync.Mutex
	cache map[string]FileSum
}

func newHasher() *hasher { return &hasher{cache: make(map[string]FileSum)} }

// file returns the sum of path. If trusted holds a sum with the same size
// and modification time (from the stamp of the producing stage), it is used
// without reading the file.
func (h *hasher) file(path string, trusted []FileSum) (FileSum, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileSum{}, err
	}
	sum := FileSum{Name: filepath.Base(path), Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	for _, t := range trusted {
		if t.Name == sum.Name && t.Size == sum.Size && t.ModTime == sum.ModTime && t.SHA256 != "" {
			return t, nil
		}
	}
	h.mu.Lock()
	c, ok := h.cache[path]
	h.mu.Unlock()
	if ok && c.Size == sum.Size && c.ModTime == sum.ModTime {
		return c, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return FileSum{}, err
	}
	defer f.Close()
	d := sha256.New()
	if _, err := io.Copy(d, f); err != nil {
		return FileSum{}, fmt.Errorf("hash %s: %w", path, err)
	}
	sum.SHA256 = hex.EncodeToString(d.Sum(nil))
	h.mu.Lock()
	h.cache[path] = sum
	h.mu.Unlock()
	return sum, nil
}

// forget drops the remembered sums of the files in dir, which a stage has
// just rewritten: on a file system with coarse modification times a
// rewritten file could otherwise match its old size and time.
func (h *hasher) forget(dir string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for path := range h.cache {
		if filepath.Dir(path) == dir {
			delete(h.cache, path)
		}
	}
}

// dir sums the files of an output directory: its regular files, not its
// subdirectories, and not files whose names begin with "." (the stamp, the
// logs, temporary files of a stage still writing).
func (h *hasher) dir(dir string) ([]FileSum, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var trusted []FileSum
	if st, err := ReadStamp(dir); err == nil {
		trusted = st.Outputs
	}
	var sums []FileSum
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		s, err := h.file(filepath.Join(dir, e.Name()), trusted)
		if err != nil {
			return nil, err
		}
		sums = append(sums, s)
	}
	return sums, nil
}

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
		reasons = append(reasons, binaryChange(p, fp.binary))
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
