package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
