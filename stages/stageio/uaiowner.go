package stageio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/renn-go/renn/formats"
)

// uaiRunPrefix begins the comment line that names the run of a result file.
const uaiRunPrefix = "renn run: "

// runLine is the comment line naming this run in the files of method.
func (u UAIOut) runLine(method string) (string, error) {
	rel, err := filepath.Rel(resolve(u.dir(method)), resolve(u.Out))
	if err != nil {
		return "", fmt.Errorf("UAI output: --out %s relative to %s: %w", u.Out, u.dir(method), err)
	}
	return fmt.Sprintf("%sstage=%s out=%s method=%s", uaiRunPrefix, u.Stage, strconv.Quote(filepath.ToSlash(rel)), method), nil
}

// uaiRun is the run a result file names: its stage and --out, resolved.
type uaiRun struct {
	stage, out string
}

// fileRun returns the run that wrote the result file at path, with ok false
// when the file names none (not written by these tools).
func fileRun(path string) (run uaiRun, ok bool, err error) {
	lines, err := formats.ReadUAIResultHeader(path)
	if err != nil {
		return run, false, err
	}
	for _, l := range lines {
		rest, found := strings.CutPrefix(l, uaiRunPrefix)
		if !found {
			continue
		}
		stage, rest, found := strings.Cut(rest, " out=")
		q, qerr := strconv.QuotedPrefix(rest)
		if !found || qerr != nil {
			return run, false, nil
		}
		rel, _ := strconv.Unquote(q)
		stage = strings.TrimPrefix(stage, "stage=")
		return uaiRun{stage, filepath.Join(resolve(filepath.Dir(path)), filepath.FromSlash(rel))}, true, nil
	}
	return run, false, nil
}

// ours reports whether r is this run: the same --out.
func (u UAIOut) ours(r uaiRun) bool {
	out := resolve(u.Out)
	if r.out == out {
		return true
	}
	a, err1 := os.Stat(r.out)
	b, err2 := os.Stat(out)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// UAIConflictError is the refusal to write over result files of another
// run. It is a usage error (the command line names a directory that holds
// other results): UsageError reports true.
type UAIConflictError struct {
	Dir   string
	Files []string // the files and who wrote them
}

func (e *UAIConflictError) Error() string {
	const show = 5
	list := e.Files
	more := ""
	if len(list) > show {
		list, more = list[:show], fmt.Sprintf(" and %d more", len(e.Files)-show)
	}
	return fmt.Sprintf("--uai-out %s holds UAI result files of another run, which this run would replace: %s%s; give --overwrite to replace them, or another --uai-out",
		e.Dir, strings.Join(list, "; "), more)
}

// UsageError marks the error as one of the command line (exit 2).
func (e *UAIConflictError) UsageError() bool { return true }

// Claim refuses, before a stage runs, to write over files of another run:
// it checks the result files of every model under every method (see
// UAIOut), and returns a *UAIConflictError naming those that exist and were
// written by another run (another --out) or not by these tools, unless
// Overwrite. Outputs checks again when the stage has run.
func (u UAIOut) Claim(methods []string, models []Model) error {
	if u.Dir == "" {
		return nil
	}
	all, err := targets(methods, models)
	if err != nil {
		return err
	}
	return u.claim(all)
}

func (u UAIOut) claim(ts []uaiTarget) error {
	if u.Overwrite {
		return nil
	}
	var bad []string
	for _, t := range ts {
		for _, suf := range []string{formats.UAIResultMAR, formats.UAIResultPR} {
			path := u.base(t) + "." + suf
			why, err := u.foreign(path)
			if err != nil {
				return fmt.Errorf("UAI output: %w", err)
			}
			if why != "" {
				bad = append(bad, path+" ("+why+")")
			}
		}
	}
	if len(bad) > 0 {
		return &UAIConflictError{Dir: u.Dir, Files: bad}
	}
	return nil
}

// foreign says who wrote the file at path if not this run, or "" if it is
// this run's or does not exist.
func (u UAIOut) foreign(path string) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	r, ok, err := fileRun(path)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "not written by these tools", nil
	case !u.ours(r):
		return fmt.Sprintf("written by %s --out %s", r.stage, r.out), nil
	}
	return "", nil
}

// stale returns outputs removing the result files of this run in the
// directories of methods that outs do not write again.
func (u UAIOut) stale(methods []string, outs []Output) ([]Output, error) {
	written := make(map[string]bool, len(outs))
	for _, o := range outs {
		written[filepath.Join(o.Dir, o.Name)] = true
	}
	var rm []Output
	for _, method := range methods {
		dir := u.dir(method)
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("UAI output: %w", err)
		}
		for _, e := range entries {
			name := e.Name()
			path := filepath.Join(dir, name)
			if e.IsDir() || written[path] || !isResultName(name) {
				continue
			}
			r, ok, err := fileRun(path)
			if err != nil {
				return nil, fmt.Errorf("UAI output: %w", err)
			}
			if ok && u.ours(r) {
				rm = append(rm, Output{Dir: dir, Name: name, Remove: true})
			}
		}
	}
	return rm, nil
}

// isResultName reports whether name is that of a UAI result file.
func isResultName(name string) bool {
	return strings.HasSuffix(name, ".uai."+formats.UAIResultMAR) || strings.HasSuffix(name, ".uai."+formats.UAIResultPR)
}

// resolve returns path absolute, with the links of its longest existing
// ancestor resolved, so that the same directory gets the same name however
// it was reached.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
