package pipeline

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestBuildProgress(t *testing.T) {
	var out bytes.Buffer
	b := &buildProgress{w: &out, start: time.Now()}
	for _, chunk := range []string{
		"internal/goarch\nruntime",
		"\ngo: downloading gonum.org/v1/gonum v0.17.0\n",
		"gonum.org/v1/gonum/mat\n# github.com/renn-go/renn/core/bp\ncore/bp/bp.go:12:2: undefined: x\n",
	} {
		b.Write([]byte(chunk))
	}
	b.report()
	b.Write([]byte("github.com/renn-go/renn/cmd/score\nno newline at the end"))
	b.close()
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		"go: downloading gonum.org/v1/gonum v0.17.0",
		"# github.com/renn-go/renn/core/bp",
		"core/bp/bp.go:12:2: undefined: x",
		"building: 3 packages compiled in 0s, the last gonum.org/v1/gonum/mat",
		"no newline at the end",
		"building: 4 packages compiled in 0s, the last github.com/renn-go/renn/cmd/score",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("build output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A build that compiled nothing (all cached) says nothing.
	out.Reset()
	b = &buildProgress{w: &out, start: time.Now()}
	b.close()
	if out.Len() != 0 {
		t.Errorf("an empty build wrote %q", out.String())
	}
}
