package report

import (
	"os"
	"path/filepath"
	"testing"
)

// procField reads the first "key: value" line of the key, trimmed, and ""
// for a key or file it does not find.
func TestProcField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpuinfo")
	if err := os.WriteFile(path, []byte("processor\t: 0\nmodel name\t: Some CPU  \n\nprocessor\t: 1\nmodel name\t: Other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, key, want string }{
		{path, "model name", "Some CPU"}, {path, "processor", "0"}, {path, "flags", ""}, {path + ".none", "model name", ""},
	} {
		if got := procField(c.path, c.key); got != c.want {
			t.Errorf("procField(%s, %q) = %q, want %q", filepath.Base(c.path), c.key, got, c.want)
		}
	}
}
