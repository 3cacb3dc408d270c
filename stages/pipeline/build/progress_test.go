package build

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

	// With the count go list expects, the build says it first and counts
	// against it; a count it exceeds is left out.
	out.Reset()
	b = &buildProgress{w: &out, start: time.Now(), total: 2}
	b.begin()
	b.Write([]byte("runtime\n"))
	b.report()
	b.Write([]byte("fmt\nos\n"))
	b.close()
	want = []string{
		"building: about 2 packages to compile (go build -v ./cmd/...; a line every 20s)",
		"building: 1 of about 2 packages compiled in 0s, the last runtime",
		"building: 3 packages compiled in 0s, the last os",
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != strings.Join(want, "\n") {
		t.Errorf("build output with a total:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}

	// A build that compiled nothing (all cached) says nothing.
	out.Reset()
	b = &buildProgress{w: &out, start: time.Now()}
	b.close()
	if out.Len() != 0 {
		t.Errorf("an empty build wrote %q", out.String())
	}
}
