package stageio

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// names lists dir, hidden entries included.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var errDiskFull = errors.New("disk full")

// text is an output holding content, written as the formats writers do:
// a temporary file beside the path, renamed into place.
func text(name, content string) Output {
	return Output{Name: name, Write: func(path string) error {
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"-1.tmp")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}}
}

// failing is an output whose writer fails midway, leaving its temporary
// file behind as a killed writer would.
func failing(name string) Output {
	return Output{Name: name, Write: func(path string) error {
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"-2.tmp")
		os.WriteFile(tmp, []byte("half"), 0o644)
		return errDiskFull
	}}
}

// previous makes data/out as an earlier run left it: two outputs, the
// pipeline's logs, a file of another program, a temporary file of a
// killed writer, and siblings of a killed commit.
func previous(t *testing.T) (parent, out string) {
	parent = filepath.Join(t.TempDir(), "data")
	out = filepath.Join(parent, "out")
	write(t, filepath.Join(out, "marginals.parquet"), "old marginals")
	write(t, filepath.Join(out, "estimates.parquet"), "old estimates")
	write(t, filepath.Join(out, ".logs", "stderr.log"), "log")
	write(t, filepath.Join(out, "notes.txt"), "mine")
	write(t, filepath.Join(out, ".samples.parquet-123.tmp"), "killed writer")
	return parent, out
}

func TestCommitReplacesOutputSet(t *testing.T) {
	for _, twoRenames := range []bool{false, true} {
		swapDirs := exchangeFunc(exchange)
		if twoRenames {
			swapDirs = func(a, b string) error { return errNoExchange }
		}
		parent, out := previous(t)
		write(t, filepath.Join(parent, ".out.commit-999", "marginals.parquet"), "killed commit")
		write(t, filepath.Join(parent, ".out.old-998", "out", "x"), "killed commit")
		logs, err := os.OpenFile(filepath.Join(out, ".logs", "stderr.log"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = commit(out, []Output{text("marginals.parquet", "new marginals"), text("estimates.parquet", "new estimates")}, swapDirs)
		if err != nil {
			t.Fatalf("two renames %v: %v", twoRenames, err)
		}
		// The running stage's log, open across the commit, is the one in out.
		logs.WriteString(" and more")
		logs.Close()
		if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
			t.Errorf("two renames %v: data holds %q, want only out", twoRenames, got)
		}
		if got, want := names(t, out), []string{".logs", "estimates.parquet", "marginals.parquet", "notes.txt"}; !slices.Equal(got, want) {
			t.Errorf("two renames %v: out holds %q, want %q", twoRenames, got, want)
		}
		for name, want := range map[string]string{"marginals.parquet": "new marginals", "estimates.parquet": "new estimates",
			"notes.txt": "mine", ".logs/stderr.log": "log and more"} {
			if got := read(t, filepath.Join(out, name)); got != want {
				t.Errorf("two renames %v: %s holds %q, want %q", twoRenames, name, got, want)
			}
		}
	}
}

// TestCommitFailsMidway: the second of two outputs fails (a full disk): the
// previous output set stays whole, and nothing of the failed commit stays.
func TestCommitFailsMidway(t *testing.T) {
	parent, out := previous(t)
	before := names(t, out)
	err := Commit(out, text("marginals.parquet", "new marginals"), failing("estimates.parquet"))
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("error %v, want disk full", err)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("data holds %q, want only out", got)
	}
	if got := names(t, out); !slices.Equal(got, before) {
		t.Errorf("out holds %q, want %q as before", got, before)
	}
	if got := read(t, filepath.Join(out, "marginals.parquet")); got != "old marginals" {
		t.Errorf("marginals.parquet holds %q, want the old one", got)
	}
}

// TestCommitAfterKill: what a commit killed at any point leaves (a
// half-written commit directory, or the previous directory set aside
// between two renames) goes at the next commit, which installs its set.
func TestCommitAfterKill(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "data")
	write(t, filepath.Join(parent, ".out.commit-1", "marginals.parquet"), "new marginals")
	write(t, filepath.Join(parent, ".out.commit-1", ".estimates.parquet-5.tmp"), "half")
	write(t, filepath.Join(parent, ".out.old-2", "out", "marginals.parquet"), "old marginals")
	write(t, filepath.Join(parent, ".other.commit-3", "x"), "another directory's commit")
	out := filepath.Join(parent, "out")
	if err := Commit(out, text("marginals.parquet", "m"), text("estimates.parquet", "e")); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, parent), []string{".other.commit-3", "out"}; !slices.Equal(got, want) {
		t.Errorf("data holds %q, want %q", got, want)
	}
	if got, want := names(t, out), []string{"estimates.parquet", "marginals.parquet"}; !slices.Equal(got, want) {
		t.Errorf("out holds %q, want %q", got, want)
	}
}

func TestCommitSubdirectoriesAndOwnDir(t *testing.T) {
	_, out := previous(t)
	write(t, filepath.Join(out, "uai", "stale.uai"), "from the previous run")
	write(t, filepath.Join(out, "uai", "a.uai"), "replaced")
	write(t, filepath.Join(out, "uai", ".a.uai-7.tmp"), "killed writer")
	other := filepath.Join(filepath.Dir(out), "elsewhere")
	err := Commit(out, text("uai/a.uai", "a"), Output{Name: "b.uai", Dir: other, Write: text("b.uai", "b").Write})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, filepath.Join(out, "uai")); !slices.Equal(got, []string{"a.uai", "stale.uai"}) {
		t.Errorf("out/uai holds %q, want the new a.uai and the other file kept", got)
	}
	if got := read(t, filepath.Join(other, "b.uai")); got != "b" {
		t.Errorf("own Dir: %q", got)
	}
	if got := read(t, filepath.Join(out, "marginals.parquet")); got != "old marginals" {
		t.Errorf("a file the commit does not write: %q, want it carried over", got)
	}
}

func TestCommitIntoWorkingDirectory(t *testing.T) {
	_, out := previous(t)
	t.Chdir(out)
	if err := Commit(".", text("marginals.parquet", "new")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, "marginals.parquet"); got != "new" {
		t.Errorf("marginals.parquet: %q", got)
	}
	for _, n := range names(t, ".") {
		if strings.HasSuffix(n, ".tmp") {
			t.Errorf("stale temporary file %s left", n)
		}
	}
}

// TestCommitOtherDirFails: an output of another directory fails after the
// main directory's set is written: neither directory changes.
func TestCommitOtherDirFails(t *testing.T) {
	parent, out := previous(t)
	before := names(t, out)
	err := Commit(out, text("marginals.parquet", "new"), Output{Name: "x.uai", Dir: filepath.Join(parent, "uai"), Write: failing("x.uai").Write})
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("error %v, want disk full", err)
	}
	if got := read(t, filepath.Join(out, "marginals.parquet")); got != "old marginals" {
		t.Errorf("marginals.parquet holds %q, want the old one", got)
	}
	if got := names(t, out); !slices.Equal(got, before) {
		t.Errorf("out holds %q, want %q", got, before)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("data holds %q, want only out", got)
	}
}

// A write that fails where nothing can be created (here under a regular
// file; a read-only directory is the same case) reports its own error only,
// not a second, confusing one about removing the file it never wrote.
func TestCommitFailedWriteOneError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(path string) error { return os.WriteFile(path, []byte("x"), 0o644) }
	err := Commit(dir, Output{Name: "ok", Write: write}, Output{Name: filepath.Join("f", "out.parquet"), Write: write})
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), "remove") || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("error %q: want the write's error alone", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "ok")); serr == nil {
		t.Error("the first output is left behind")
	}
}

// TestCommitErrorNamesOutput: a writer that fails (a full disk) names the
// file it was writing; the error names it in the output directory the
// caller gave, not in the hidden commit directory, which is gone.
func TestCommitErrorNamesOutput(t *testing.T) {
	_, out := previous(t)
	full := Output{Name: "estimates.parquet", Write: func(path string) error {
		return fmt.Errorf("write %s: %w", path, &os.PathError{Op: "write", Path: path, Err: syscall.EFBIG})
	}}
	err := Commit(out, text("marginals.parquet", "new marginals"), full)
	if !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("error %v, want EFBIG", err)
	}
	want := "write " + filepath.Join(out, "estimates.parquet") + ": "
	if !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), commitPrefix) {
		t.Errorf("error %q: want it to begin %q and not name the commit directory", err, want)
	}
}

// snapshot maps every file under dir (hidden ones included) to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = read(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCommitInstallFailsRollsBack: the main directory's install fails
// after the other directory (--uai-out) was installed: the other is put
// back, so both hold their previous outputs, the main one's open logs
// included, and nothing of the failed commit is left; with the atomic
// exchange and with two renames.
func TestCommitInstallFailsRollsBack(t *testing.T) {
	for _, twoRenames := range []bool{false, true} {
		parent, out := previous(t)
		uai := filepath.Join(parent, "uai")
		write(t, filepath.Join(uai, "bp", "a.uai.MAR"), "old bp")
		write(t, filepath.Join(uai, "mf", "a.uai.MAR"), "old mf")
		beforeOut, beforeUAI := snapshot(t, out), snapshot(t, uai)
		swapDirs := func(a, b string) error {
			if b == out {
				return errDiskFull
			}
			if twoRenames {
				return errNoExchange
			}
			return exchange(a, b)
		}
		err := commit(out, []Output{text("marginals.parquet", "new"), text("estimates.parquet", "new"),
			{Dir: uai, Name: "bp/a.uai.MAR", Write: text("bp/a.uai.MAR", "new bp").Write}}, swapDirs)
		if !errors.Is(err, errDiskFull) {
			t.Fatalf("two renames %v: error %v, want disk full", twoRenames, err)
		}
		if got := snapshot(t, out); !maps.Equal(got, beforeOut) {
			t.Errorf("two renames %v: out holds %q, want %q", twoRenames, got, beforeOut)
		}
		if got := snapshot(t, uai); !maps.Equal(got, beforeUAI) {
			t.Errorf("two renames %v: uai holds %q, want %q", twoRenames, got, beforeUAI)
		}
		if got := names(t, parent); !slices.Equal(got, []string{"out", "uai"}) {
			t.Errorf("two renames %v: data holds %q, want out and uai only", twoRenames, got)
		}
	}
}

// TestCommitNestedDir: --uai-out inside --out. The inner directory is
// installed first and the outer one's install carries it along; a failure
// of the outer one puts both back.
func TestCommitNestedDir(t *testing.T) {
	outs := func(out string) []Output {
		return []Output{text("marginals.parquet", "new"),
			{Dir: filepath.Join(out, "uai"), Name: "a.uai.PR", Write: text("a.uai.PR", "new pr").Write}}
	}
	_, out := previous(t)
	write(t, filepath.Join(out, "uai", "a.uai.PR"), "old pr")
	write(t, filepath.Join(out, "uai", "b.uai.PR"), "other model")
	before := snapshot(t, out)
	failOut := func(a, b string) error {
		if b == out {
			return errDiskFull
		}
		return exchange(a, b)
	}
	if err := commit(out, outs(out), failOut); !errors.Is(err, errDiskFull) {
		t.Fatalf("error %v, want disk full", err)
	}
	if got := snapshot(t, out); !maps.Equal(got, before) {
		t.Errorf("after a failed commit out holds %q, want %q", got, before)
	}
	if got := names(t, filepath.Join(out, "uai")); !slices.Equal(got, []string{"a.uai.PR", "b.uai.PR"}) {
		t.Errorf("out/uai holds %q", got)
	}
	if err := Commit(out, outs(out)...); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"marginals.parquet": "new", "uai/a.uai.PR": "new pr", "uai/b.uai.PR": "other model",
		"estimates.parquet": "old estimates", ".logs/stderr.log": "log"} {
		if got := read(t, filepath.Join(out, name)); got != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
	if got := names(t, out); slices.ContainsFunc(got, func(n string) bool { return strings.Contains(n, commitPrefix) }) {
		t.Errorf("out holds %q: a commit directory is left", got)
	}
}

// TestCommitRemove: an output with Remove takes the file out of the new set
// (atomically, and in the fallback that writes file by file), and a failed
// commit keeps it.
func TestCommitRemove(t *testing.T) {
	gone := Output{Name: "notes.txt", Remove: true}
	_, out := previous(t)
	if err := Commit(out, gone, failing("marginals.parquet")); !errors.Is(err, errDiskFull) {
		t.Fatalf("error %v", err)
	}
	if got := read(t, filepath.Join(out, "notes.txt")); got != "mine" {
		t.Errorf("a failed commit removed notes.txt: %q", got)
	}
	if err := Commit(out, text("marginals.parquet", "new"), gone); err != nil {
		t.Fatal(err)
	}
	if got, want := names(t, out), []string{".logs", "estimates.parquet", "marginals.parquet"}; !slices.Equal(got, want) {
		t.Errorf("out holds %q, want %q", got, want)
	}
	_, out = previous(t)
	t.Chdir(out)
	if err := Commit(".", gone, failing("marginals.parquet")); !errors.Is(err, errDiskFull) {
		t.Fatalf("error %v", err)
	}
	if got := read(t, "notes.txt"); got != "mine" {
		t.Errorf("a failed commit in the working directory removed notes.txt: %q", got)
	}
	if err := Commit(".", gone); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("notes.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("notes.txt still there: %v", err)
	}
}
