package pipeline

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/renn-go/renn/stages/pipeline/config"
)

// StampPath is a file or directory named by a flag value (not an input
// from another stage), with its content as it was when the instance ran.
// A file has one entry in Files, named by its base name; a directory has
// one per regular file under it, named by its slash-separated path inside
// it.
type StampPath struct {
	Flag  string    `json:"flag"`
	Path  string    `json:"path"` // as written in the flag
	Dir   bool      `json:"dir,omitempty"`
	Files []FileSum `json:"files"`
}

// flagPaths fingerprints every flag value of inst that names an existing
// file or directory, relative to the config's directory; a comma-joined
// list value is tried whole, then element by element. Values that name
// nothing (graph names, method lists, numbers) add nothing, so a stage
// whose flags name no files has the fingerprint of a stamp without paths.
func (h *Judge) flagPaths(c *config.Config, inst *Instance) ([]StampPath, error) {
	inputs := make(map[string]bool) // flags fingerprinted otherwise, or not at all
	for _, in := range inst.Stage.Inputs {
		inputs[in.Flag] = true
	}
	for _, f := range inst.Stage.Untracked {
		inputs[f] = true
	}
	var out []StampPath
	for _, a := range inst.Args {
		name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !ok || !strings.HasPrefix(a, "--") || name == "out" || inputs[name] || value == "" {
			continue
		}
		cands := []string{value}
		if !exists(c.Abs(value)) && strings.Contains(value, ",") {
			cands = strings.Split(value, ",")
		}
		for _, v := range cands {
			if v == "" || !exists(c.Abs(v)) {
				continue
			}
			sp, err := h.flagPath(c, name, v)
			if err != nil {
				return nil, fmt.Errorf("%s: flag --%s: %w", inst.ID, name, err)
			}
			out = append(out, sp)
		}
	}
	return out, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// flagPath sums the file or directory value names.
func (h *Judge) flagPath(c *config.Config, flag, value string) (StampPath, error) {
	path := c.Abs(value)
	sp := StampPath{Flag: flag, Path: value}
	fi, err := os.Stat(path)
	if err != nil {
		return sp, err
	}
	if !fi.IsDir() {
		s, err := h.file(path, nil)
		sp.Files = []FileSum{s}
		return sp, err
	}
	if within(c.Dir, path) || within(c.DataDir, path) {
		return sp, fmt.Errorf("%s is a directory holding the project or its data directory %s; "+
			"the pipeline cannot fingerprint it (name a directory of inputs instead)", value, c.Rel(c.DataDir))
	}
	sp.Dir = true
	sp.Files, err = h.tree(path)
	return sp, err
}

// tree sums the regular files under root, recursively, skipping names that
// begin with "." (version control, temporary files of a writer) as dir
// does. Symbolic links to files count as the files; links to directories
// are not followed.
func (h *Judge) tree(root string) ([]FileSum, error) {
	var sums []FileSum
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			fi, err := os.Stat(path)
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		}
		s, err := h.file(path, nil)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		s.Name = filepath.ToSlash(rel)
		sums = append(sums, s)
		return nil
	})
	return sums, err
}

// pathsChange says which flag-named file changed between old and cur, or
// returns "".
func pathsChange(old, cur []StampPath) string {
	for _, c := range cur {
		i := slices.IndexFunc(old, func(o StampPath) bool { return o.Flag == c.Flag && o.Path == c.Path })
		if i < 0 {
			return fmt.Sprintf("%s %s (--%s) not in the stamp", kind(c.Dir), c.Path, c.Flag)
		}
		o := old[i]
		if !c.Dir {
			if o.Dir || len(o.Files) != 1 || o.Files[0].SHA256 != c.Files[0].SHA256 {
				return "file " + c.Path + " changed"
			}
			continue
		}
		if r := treeChange(c.Path, o.Files, c.Files); r != "" {
			return r
		}
	}
	for _, o := range old {
		if !slices.ContainsFunc(cur, func(c StampPath) bool { return o.Flag == c.Flag && o.Path == c.Path }) {
			return fmt.Sprintf("%s %s (--%s) is gone", kind(o.Dir), o.Path, o.Flag)
		}
	}
	return ""
}

func kind(dir bool) string {
	if dir {
		return "directory"
	}
	return "file"
}

func treeChange(dir string, old, cur []FileSum) string {
	name := func(f string) string { return filepath.ToSlash(filepath.Join(dir, f)) }
	for _, f := range cur {
		j := slices.IndexFunc(old, func(g FileSum) bool { return g.Name == f.Name })
		switch {
		case j < 0:
			return "file " + name(f.Name) + " added"
		case old[j].SHA256 != f.SHA256:
			return "file " + name(f.Name) + " changed"
		}
	}
	for _, f := range old {
		if !slices.ContainsFunc(cur, func(g FileSum) bool { return g.Name == f.Name }) {
			return "file " + name(f.Name) + " removed"
		}
	}
	return ""
}
