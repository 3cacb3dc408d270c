package formats

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names lists dir, hidden files included.
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

// failingWriter passes n bytes through, then fails: a full disk midway.
type failingWriter struct {
	w io.Writer
	n int
}

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, errDiskFull
	}
	f.n -= len(p)
	return f.w.Write(p)
}

// TestWriteFailsMidway makes the Parquet encoder fail after some bytes: the
// temporary file must go, and a previous file at the path must survive.
func TestWriteFailsMidway(t *testing.T) {
	t.Parallel()
	rows := genFactors(rand.New(rand.NewPCG(11, 11)), 300)
	for _, n := range []int{0, 3, 100, 2000} {
		for _, existing := range []bool{false, true} {
			dir := t.TempDir()
			path := filepath.Join(dir, ModelsFile)
			old := []byte("the previous run's file")
			if existing {
				if err := os.WriteFile(path, old, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := writeAtomic(path, func(w io.Writer) error {
				meta, err := testProv.metadata()
				if err != nil {
					return err
				}
				return encodeTable(&failingWriter{w: w, n: n}, modelsTable, rows, meta, writeOptions{maxRows: 10, maxBytes: 1 << 30})
			})
			if !errors.Is(err, errDiskFull) {
				t.Fatalf("fail after %d bytes: error %v, want disk full", n, err)
			}
			want := []string(nil)
			if existing {
				want = []string{ModelsFile}
				if got, _ := os.ReadFile(path); string(got) != string(old) {
					t.Errorf("fail after %d bytes: previous file changed to %q", n, got)
				}
			}
			if got := names(t, dir); !slices.Equal(got, want) {
				t.Errorf("fail after %d bytes, existing %v: directory holds %q, want %q", n, existing, got, want)
			}
		}
	}
}

// TestWriteBadPath checks writes that cannot start or cannot finish leave
// nothing behind.
func TestWriteBadPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker")
	if err := os.WriteFile(blocker, []byte("a file, not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := genScores(rand.New(rand.NewPCG(12, 12)), 5)

	// The directory to write into is a file.
	path := filepath.Join(blocker, "out", ScoresFile)
	if err := WriteScores(path, rows, testProv); err == nil || !strings.HasPrefix(err.Error(), "write "+path+": ") {
		t.Errorf("write under a file: error %v, want one naming the path", err)
	}
	// The path itself is a directory: the rename fails after the data is
	// written, and the temporary file must go.
	target := filepath.Join(dir, "taken")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteScores(target, rows, testProv); err == nil || !strings.HasPrefix(err.Error(), "write "+target+": ") {
		t.Errorf("write onto a directory: error %v, want one naming the path", err)
	}
	// Parameters that are not JSON are refused before anything is written.
	bad := testProv
	bad.Params = "{max_table: 3"
	if err := WriteScores(filepath.Join(dir, ScoresFile), rows, bad); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("params not JSON: error %v", err)
	}
	// A summary row with the wrong number of group values.
	sum := genSummary(rand.New(rand.NewPCG(13, 13)), 3, 2)
	sum[2].Group = sum[2].Group[:1]
	if err := WriteSummary(filepath.Join(dir, SummaryFile), []string{"graph", "size"}, sum, testProv); err == nil ||
		!strings.Contains(err.Error(), "row 2 has 1 group values for 2 group columns") {
		t.Errorf("short group: error %v", err)
	}
	for _, cols := range [][]string{{"graph", "graph"}, {""}, {"mean"}} {
		if err := WriteSummary(filepath.Join(dir, SummaryFile), cols, nil, testProv); err == nil {
			t.Errorf("group columns %q accepted", cols)
		}
	}
	if got, want := names(t, dir), []string{"blocker", "taken"}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q after failed writes, want %q", got, want)
	}
	if got := names(t, target); len(got) != 0 {
		t.Errorf("directory at the path holds %q", got)
	}
}

// TestWriteReplaces checks an existing file is replaced whole, the mode is
// the usual one, and no temporary file stays.
func TestWriteReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, CurvesFile)
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	rows := genCurves(rand.New(rand.NewPCG(14, 14)), 10)
	if err := WriteCurves(path, rows, testProv); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadCurves(path)
	if err != nil {
		t.Fatal(err)
	}
	if !same(got, rows) {
		t.Error("rows differ after replacing a file")
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if got := names(t, dir); !slices.Equal(got, []string{CurvesFile}) {
		t.Errorf("directory holds %q", got)
	}
}

// TestFileSHA256 checks the hash against a known value and ReadProvenance
// against the writer's provenance.
func TestFileSHA256(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "abc")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	// FIPS 180-2, appendix B.1.
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("sha256(abc) = %s, want %s", got, want)
	}
}

func TestReadProvenance(t *testing.T) {
	t.Parallel()
	for _, prov := range []Provenance{testProv, {}, {Stage: "score", Seed: 1 << 62, Params: "[]"}} {
		path := filepath.Join(t.TempDir(), EstimatesFile)
		if err := WriteEstimates(path, nil, prov); err != nil {
			t.Fatal(err)
		}
		got, err := ReadProvenance(path)
		if err != nil {
			t.Fatal(err)
		}
		if !same(got, prov) {
			t.Errorf("provenance\n%#v\nwant\n%#v", got, prov)
		}
	}
}

// WriteTextFile makes the directory, replaces a previous file whole, leaves
// no temporary file behind, and on failure names the path and keeps the
// previous file.
func TestWriteTextFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "summary.md")
	for _, text := range []string{"first\n", "second, longer\n"} {
		if err := WriteTextFile(path, text); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != text {
			t.Fatalf("read %q, %v; want %q", b, err, text)
		}
	}
	if got := names(t, filepath.Dir(path)); !slices.Equal(got, []string{"summary.md"}) {
		t.Errorf("files left: %v", got)
	}
	// A directory where the file should be: the rename fails.
	blocked := filepath.Join(dir, "blocked")
	if err := os.MkdirAll(filepath.Join(blocked, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteTextFile(blocked, "text")
	if err == nil || !strings.Contains(err.Error(), blocked) {
		t.Errorf("writing over a directory: %v", err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"blocked", "sub"}) {
		t.Errorf("files left after the failure: %v", got)
	}
}
