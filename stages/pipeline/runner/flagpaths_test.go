package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/pipeline/internal/pipetest"
)

// paths: a stage reading a file named in its flags, one reading a
// directory outside the project, and one whose flag values name nothing.
const paths = `
[stage.file]
run = ["fakestage"]
flags = { model = "model.uai", log = "LOG" }
untracked = ["log"]

[stage.dir]
run = ["fakestage"]
flags = { models = "../ext", log = "LOG" }
untracked = ["log"]

[stage.plain]
run = ["fakestage"]
flags = { graph = "complete", methods = ["bp", "gbp"], size = 5, log = "LOG" }
untracked = ["log"]
`

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFlagPathsFingerprinted(t *testing.T) {
	p := newProject(t, paths)
	ext := filepath.Join(filepath.Dir(p.Dir), "ext")
	writeFile(t, p.Path("model.uai"), "MARKOV\n1\n2\n")
	writeFile(t, filepath.Join(ext, "a.uai"), "a")
	writeFile(t, filepath.Join(ext, "sub", "b.uai"), "b")
	writeFile(t, filepath.Join(ext, ".hidden"), "ignored")
	p.run(t, p.runner(), nil)
	pipetest.AssertIDs(t, "first run", p.Ran(t), []string{"file", "dir", "plain"})
	if st, err := pipeline.ReadStamp(p.Path("data/plain")); err != nil || len(st.Paths) != 0 {
		t.Errorf("plain: stamp paths %v (%v), want none: its values name no files", st.Paths, err)
	}
	st, err := pipeline.ReadStamp(p.Path("data/dir"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Paths) != 1 || !st.Paths[0].Dir || len(st.Paths[0].Files) != 2 ||
		st.Paths[0].Files[0].Name != "a.uai" || st.Paths[0].Files[1].Name != "sub/b.uai" {
		t.Errorf("dir: stamp paths %+v, want ../ext with a.uai and sub/b.uai", st.Paths)
	}

	steps := []struct {
		name   string
		change func()
		stale  string // the instance made stale
		reason string
	}{
		{"file edited", func() { writeFile(t, p.Path("model.uai"), "MARKOV\n1\n3\n") }, "file", "file model.uai changed"},
		{"file in a subdirectory edited", func() { writeFile(t, filepath.Join(ext, "sub", "b.uai"), "B") }, "dir", "file ../ext/sub/b.uai changed"},
		{"file added", func() { writeFile(t, filepath.Join(ext, "c.uai"), "c") }, "dir", "file ../ext/c.uai added"},
		{"file removed", func() { os.Remove(filepath.Join(ext, "a.uai")) }, "dir", "file ../ext/a.uai removed"},
		{"file deleted", func() { os.Remove(p.Path("model.uai")) }, "file", "file model.uai (--model) is gone"},
	}
	for _, s := range steps {
		s.change()
		for id, st := range p.States(t) {
			switch {
			case id == s.stale && (st.State != pipeline.Stale || st.Reason != s.reason):
				t.Errorf("%s: %s is %s (%s), want stale: %s", s.name, id, st.State, st.Reason, s.reason)
			case id != s.stale && st.State != pipeline.UpToDate:
				t.Errorf("%s: %s is %s (%s), want up to date", s.name, id, st.State, st.Reason)
			}
		}
		p.run(t, p.runner(), nil)
		pipetest.AssertIDs(t, s.name+": ran", p.Ran(t), []string{s.stale})
	}
}

func TestFlagPathsOldStamp(t *testing.T) {
	// A stamp without paths does not vouch for the file its flag names.
	p := newProject(t, paths)
	writeFile(t, p.Path("model.uai"), "x")
	os.MkdirAll(filepath.Join(filepath.Dir(p.Dir), "ext"), 0o755)
	p.run(t, p.runner(), nil)
	st, err := pipeline.ReadStamp(p.Path("data/file"))
	if err != nil {
		t.Fatal(err)
	}
	st.Paths = nil
	if err := pipeline.WriteStamp(p.Path("data/file"), st); err != nil {
		t.Fatal(err)
	}
	m := p.States(t)
	if s := m["file"]; s.State != pipeline.Stale || s.Reason != "file model.uai (--model) not in the stamp" {
		t.Errorf("file: %s (%s), want stale: not in the stamp", s.State, s.Reason)
	}
	if s := m["plain"]; s.State != pipeline.UpToDate {
		t.Errorf("plain: %s (%s), want up to date", s.State, s.Reason)
	}
}

func TestFlagPathHoldingProject(t *testing.T) {
	p := newProject(t, `
[stage.a]
run = ["fakestage"]
flags = { root = "." }
`)
	_, err := p.Plan(t).Status(p.Bin)
	if err == nil || !strings.Contains(err.Error(), "flag --root") || !strings.Contains(err.Error(), "cannot fingerprint") {
		t.Errorf("error %v, want one naming --root", err)
	}
}

// TestFlagDirWrittenByStage: a directory the stage writes into, named by a
// flag (as --uai-out), is recorded as the run left it: the instance is up
// to date after its run, and stale when the directory is edited.
func TestFlagDirWrittenByStage(t *testing.T) {
	p := newProject(t, `
[stage.a]
run = ["fakestage"]
flags = { value = "a", also = "uaiout", log = "LOG" }
untracked = ["log"]
`)
	for run := range 2 {
		p.run(t, p.runner(), nil)
		if st := p.States(t)["a"]; st.State != pipeline.UpToDate {
			t.Fatalf("after run %d: %s (%s), want up to date", run, st.State, st.Reason)
		}
	}
	writeFile(t, p.Path("uaiout/extra.txt"), "edited")
	if st := p.States(t)["a"]; st.State != pipeline.Stale || st.Reason != "file uaiout/extra.txt changed" {
		t.Errorf("after an edit: %s (%s), want stale: file uaiout/extra.txt changed", st.State, st.Reason)
	}
}
