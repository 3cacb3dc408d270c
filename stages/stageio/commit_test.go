package stageio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
