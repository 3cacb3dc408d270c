package stageio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"
)

// commitPrefix and oldPrefix begin the names of the hidden siblings of an
// output directory that a commit works in: ".<dir>.commit-*" holds the new
// output set while it is written, ".<dir>.old-*" the previous directory
// between the two renames where an atomic exchange is not available.
// Either, left by a killed run, is removed by the next commit to <dir>.
const (
	commitPrefix = ".commit-"
	oldPrefix    = ".old-"
)

// exchangeFunc swaps two directories in one atomic rename, or returns
// errNoExchange where the system cannot. Commit uses exchange; tests pass
// others to take the two-rename path or to make an install fail.
type exchangeFunc func(a, b string) error

// Commit writes every output into dir (or its own Dir) so that the
// directory holds the previous complete output set or the new one, never a
// mix, whether a writer fails or the process is killed.
//
// Every output is written into a fresh hidden sibling directory
// (".<name>.commit-*"); the entries of dir that are not outputs (the
// pipeline's .logs, files of other programs) are carried over, files by
// hard link and subdirectories without outputs by rename at the last
// moment (an output "uai/a.uai" replaces only that file of uai/, and one
// with Remove drops it); then the two
// directories are exchanged in one atomic rename (renameat2
// RENAME_EXCHANGE on Linux; elsewhere two renames, between which a kill
// leaves no dir at all and the previous output in ".<name>.old-*") and the
// previous directory is removed. Hidden temporary files of writers killed
// in earlier runs (".*.tmp") are not carried over, and siblings left by
// earlier killed commits are removed first. Outputs with their own Dir are
// committed per directory, each atomically; every directory is written
// before any is installed, the main one (dir) is installed last (a
// directory inside another first), and if an install fails the directories
// already installed are put back as they were, so a failed commit changes
// none of them. Only a kill between the installs of two directories leaves
// the other directories new and dir old (the stage did not finish, and the
// pipeline reruns it). Where no sibling can be made,
// or dir is the working directory or holds it, each file is still written
// atomically and a failed commit removes what it wrote (the set is then
// not atomic under a kill).
func Commit(dir string, outs ...Output) error { return commit(dir, outs, exchange) }

// commit is Commit, exchanging directories with swapDirs.
func commit(dir string, outs []Output, swapDirs exchangeFunc) error {
	var dirs []string
	byDir := make(map[string][]Output)
	for _, o := range outs {
		d := dir
		if o.Dir != "" {
			d = o.Dir
		}
		// "u", "u/" and "./u" are one directory, committed once and
		// named in errors as first given.
		key := sameDir(d)
		if _, ok := byDir[key]; !ok {
			dirs = append(dirs, d)
		}
		byDir[key] = append(byDir[key], o)
	}
	if len(dirs) == 0 {
		dirs = []string{dir}
	}
	// Every directory's set is written before any is installed, so a
	// failed writer leaves every directory as it was.
	var staged []*stagedDir
	for _, d := range dirs {
		s, err := prepare(d, byDir[sameDir(d)])
		if err != nil {
			for _, s := range staged {
				os.RemoveAll(s.tmp)
			}
			return err
		}
		if s != nil {
			staged = append(staged, s)
		}
	}
	staged = installOrder(staged, sameDir(dir))
	for i, s := range staged {
		if err := install(s, swapDirs); err != nil {
			// Put back the directories already installed, newest first, so
			// that a failed commit leaves every directory as it was.
			for j := i - 1; j >= 0; j-- {
				uninstall(staged[j], swapDirs)
			}
			for _, s := range staged {
				os.RemoveAll(s.tmp)
			}
			return fmt.Errorf("commit outputs to %s: %w", s.path, err)
		}
		syncDir(filepath.Dir(s.path))
	}
	for _, s := range staged {
		os.RemoveAll(s.tmp) // now the previous directory; if this fails, the next commit removes it
	}
	return nil
}

// sameDir returns the name of dir that Commit groups outputs by.
func sameDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return filepath.Clean(dir)
}

// installOrder orders the staged directories for installing: the main
// directory (main, the one Commit was given) last, so that its Parquet set
// is new only once the other directories (--uai-out) are; but a directory
// inside another before that one, whose install moves it along (--uai-out
// out/uai).
func installOrder(staged []*stagedDir, main string) []*stagedDir {
	var pref []*stagedDir
	for _, s := range staged {
		if s.dir != main {
			pref = append(pref, s)
		}
	}
	for _, s := range staged {
		if s.dir == main {
			pref = append(pref, s)
		}
	}
	order := make([]*stagedDir, 0, len(pref))
	for len(pref) > 0 {
		pick := 0
	search:
		for i, s := range pref {
			for _, t := range pref {
				if t != s && within(s.path, t.path) {
					continue search // t is inside s: t goes first
				}
			}
			pick = i
			break
		}
		order = append(order, pref[pick])
		pref = append(pref[:pick:pick], pref[pick+1:]...)
	}
	return order
}

// within reports whether path lies inside dir.
func within(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != "." && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// stagedDir is a new output set written in tmp, to replace path (dir is
// the name Commit groups it by, before links are resolved). Once installed, tmp holds the previous
// directory if there was one (replaced), and carried lists the
// subdirectories moved from it into the new one.
type stagedDir struct {
	tmp, path, dir string
	replaced       bool
	carried        []string
}

// prepare writes outs into a hidden sibling of dir, or, where that cannot
// be, straight into dir (returning nil).
func prepare(dir string, outs []Output) (*stagedDir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("output directory %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real // replace the directory a link points to, not the link
	}
	parent, base := filepath.Split(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	if holdsWorkingDir(abs) || base == "" {
		return nil, commitFiles(dir, outs)
	}
	cleanStale(parent, base)
	tmp, err := os.MkdirTemp(parent, "."+base+commitPrefix)
	if err != nil {
		return nil, commitFiles(dir, outs) // e.g. a writable dir in a read-only parent
	}
	if err := fillNew(tmp, abs, outs); err != nil {
		return nil, errors.Join(inOutputDir{err, tmp, dir}, os.RemoveAll(tmp))
	}
	return &stagedDir{tmp: tmp, path: abs, dir: sameDir(dir)}, nil
}

// inOutputDir is the error of a write into the commit directory tmp,
// which names the file as it would have been in dir: the commit
// directory is removed, the output directory is what the caller named.
type inOutputDir struct {
	err      error
	tmp, dir string
}

func (e inOutputDir) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.tmp, filepath.Clean(e.dir))
}

func (e inOutputDir) Unwrap() error { return e.err }

// fillNew writes outs into tmp and carries over the files of the current
// directory cur that outs do not replace.
func fillNew(tmp, cur string, outs []Output) error {
	mode := fs.FileMode(0o755)
	if fi, err := os.Stat(cur); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	for _, o := range outs {
		if o.Remove {
			continue // owned: not carried over
		}
		if err := o.Write(filepath.Join(tmp, o.Name)); err != nil {
			return err
		}
	}
	own, holding := owned(outs)
	return carryFiles(tmp, cur, "", own, holding)
}

// owned returns the slash-separated names of outs, and the directories
// that hold some of them ("a/b.uai" is held by "a").
func owned(outs []Output) (own, holding map[string]bool) {
	own, holding = make(map[string]bool), make(map[string]bool)
	for _, o := range outs {
		name := filepath.ToSlash(filepath.Clean(o.Name))
		own[name] = true
		for d := pathpkg.Dir(name); d != "."; d = pathpkg.Dir(d) {
			holding[d] = true
		}
	}
	return own, holding
}

// carryFiles hard-links (or copies) into tmp the files under cur/rel that
// the outputs do not replace, leaving out temporary files of killed
// writers. Subdirectories holding outputs are carried file by file, others
// below the top level whole; those at the top level are moved later (by
// carryDirs).
func carryFiles(tmp, cur, rel string, own, holding map[string]bool) error {
	entries, err := os.ReadDir(filepath.Join(cur, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read output directory: %w", err)
	}
	for _, e := range entries {
		name := pathpkg.Join(rel, e.Name())
		from, to := filepath.Join(cur, name), filepath.Join(tmp, name)
		switch {
		case own[name] || staleTemp(e.Name()) && !e.IsDir():
			continue
		case e.IsDir() && rel == "" && !holding[name]:
			continue // moved whole by carryDirs
		case e.IsDir():
			if err := os.MkdirAll(to, 0o755); err != nil {
				return err
			}
			if err := carryFiles(tmp, cur, name, own, holding); err != nil {
				return err
			}
			continue
		}
		if os.Link(from, to) == nil {
			continue
		}
		if err := copyFile(from, to); err != nil {
			return fmt.Errorf("carry over %s: %w", from, err)
		}
	}
	return nil
}

// carryDirs moves the subdirectories of cur that are not owned into tmp,
// just before tmp replaces cur: open files in them (the pipeline's logs of
// the running stage) move with them. It returns the names moved; on an
// error, those are moved back.
func carryDirs(tmp, cur string, own map[string]bool) ([]string, error) {
	entries, err := os.ReadDir(cur)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var moved []string
	for _, e := range entries {
		if own[e.Name()] || !e.IsDir() || strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), commitPrefix) {
			continue
		}
		if err := os.Rename(filepath.Join(cur, e.Name()), filepath.Join(tmp, e.Name())); err != nil {
			moveBack(tmp, cur, moved)
			return nil, err
		}
		moved = append(moved, e.Name())
	}
	return moved, nil
}

// moveBack moves the entries names of from back into to.
func moveBack(from, to string, names []string) {
	for _, n := range names {
		os.Rename(filepath.Join(from, n), filepath.Join(to, n))
	}
}

// install makes s.tmp the directory at s.path: exchanged with the current
// one, which then sits at s.tmp, or renamed into place if there is none.
// On an error everything is as it was.
func install(s *stagedDir, swapDirs exchangeFunc) error {
	own := make(map[string]bool)
	if entries, err := os.ReadDir(s.tmp); err == nil {
		for _, e := range entries {
			own[e.Name()] = true // already in tmp: outputs and carried files
		}
	}
	carried, err := carryDirs(s.tmp, s.path, own)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(s.path); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(s.tmp, s.path)
	}
	if err := swap(s.tmp, s.path, swapDirs); err != nil {
		moveBack(s.tmp, s.path, carried)
		return err
	}
	s.replaced, s.carried = true, carried
	return nil
}

// uninstall undoes install(s, swapDirs): the previous directory back at s.path with
// its carried subdirectories, the new one at s.tmp (or, with no previous
// directory, the new one moved back to s.tmp).
func uninstall(s *stagedDir, swapDirs exchangeFunc) {
	if !s.replaced {
		os.Rename(s.path, s.tmp)
		return
	}
	if swap(s.tmp, s.path, swapDirs) == nil {
		moveBack(s.tmp, s.path, s.carried)
	}
}

// swap exchanges the directories a and b, the second existing: in one
// atomic rename where swapDirs can, else in three (b aside, a to
// b, the previous b to a), between which a kill leaves b's previous
// directory at ".<b>.old-*".
func swap(a, b string, swapDirs exchangeFunc) error {
	err := swapDirs(a, b)
	if !errors.Is(err, errNoExchange) {
		return err
	}
	parent, base := filepath.Split(b)
	old, err := os.MkdirTemp(parent, "."+base+oldPrefix)
	if err != nil {
		return err
	}
	if err := os.Rename(b, filepath.Join(old, base)); err != nil {
		os.Remove(old)
		return err
	}
	if err := os.Rename(a, b); err != nil {
		os.Rename(filepath.Join(old, base), b) // put the previous output back
		os.Remove(old)
		return err
	}
	if err := os.Rename(filepath.Join(old, base), a); err != nil {
		return os.Rename(old, a) // the previous directory at a/<base>, removed with a all the same
	}
	os.Remove(old)
	return nil
}

// cleanStale removes the siblings of parent/base left by killed commits.
func cleanStale(parent, base string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "."+base+commitPrefix) || strings.HasPrefix(n, "."+base+oldPrefix) {
			os.RemoveAll(filepath.Join(parent, n))
		}
	}
}

// staleTemp reports whether name is a temporary file of an atomic writer
// (".<name>-<random>.tmp"), which a live writer keeps only inside a commit
// directory: one in an output directory is left by a killed run.
func staleTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")
}

// holdsWorkingDir reports whether dir is the working directory or one of
// its ancestors, which renaming would pull from under the process.
func holdsWorkingDir(dir string) bool {
	wd, err := os.Getwd()
	if err != nil {
		return true
	}
	r, err := filepath.Rel(dir, wd)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// commitFiles is the fallback of Commit: each file atomically into dir,
// and the files of a failed commit removed.
func commitFiles(dir string, outs []Output) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	removeStaleTemps(dir)
	var done, gone []string
	for _, o := range outs {
		path := filepath.Join(dir, o.Name)
		if o.Remove {
			gone = append(gone, path)
			continue
		}
		if err := o.Write(path); err != nil {
			return errors.Join(err, remove(append(done, path)))
		}
		done = append(done, path)
	}
	return remove(gone) // last: a failed write above keeps them
}

// removeStaleTemps removes the temporary files killed writers left in dir.
func removeStaleTemps(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && staleTemp(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// remove deletes the files of a failed commit.
func remove(paths []string) error {
	var errs []error
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
