package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A Judge decides whether instances are up to date (Assess), and stamps
// them when they ran (Complete). It computes sha256 sums of files,
// remembering them by path, size and modification time so that one run,
// which judges every instance with one Judge, hashes each file at most
// once. It is safe for concurrent use.
type Judge struct {
	mu    sync.Mutex
	cache map[string]FileSum
	flaws map[buildKey]string // see BuildFlaws
}

// NewJudge returns a Judge that remembers nothing yet.
func NewJudge() *Judge {
	return &Judge{cache: make(map[string]FileSum), flaws: make(map[buildKey]string)}
}

// file returns the sum of path. If trusted holds a sum with the same size
// and modification time (from the stamp of the producing stage), it is used
// without reading the file.
func (h *Judge) file(path string, trusted []FileSum) (FileSum, error) {
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
func (h *Judge) forget(dir string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for path := range h.cache {
		if filepath.Dir(path) == dir {
			delete(h.cache, path)
		}
	}
}

// Outputs sums the files of an output directory: its regular files, not its
// subdirectories, and not files whose names begin with "." (the stamp, the
// logs, temporary files of a stage still writing).
func (h *Judge) Outputs(dir string) ([]FileSum, error) {
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
