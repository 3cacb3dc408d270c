package build

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/renn-go/renn/stages/pipeline/proc"
)

// progressEvery is how often Build reports its progress.
const progressEvery = 20 * time.Second

// importPath matches the lines go build -v writes: one import path per
// package it compiles. Its other lines (errors, "go: downloading ...")
// have spaces.
var importPath = regexp.MustCompile(`^[A-Za-z0-9_.~+-]+(/[A-Za-z0-9_.~+-]+)*$`)

// buildProgress digests the output of go build -v: a cold build of the
// module compiles hundreds of packages over minutes, too many to list and
// too long to leave silent. It counts the packages and, when asked,
// writes one line naming the count and the last package; anything else
// the go command writes goes through at once.
type buildProgress struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	buf   proc.Lines
	total int // packages expected (outOfDate); 0 if not known
	n     int
	last  string
}

// begin says what the build is about to do.
func (b *buildProgress) begin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.total > 0 {
		fmt.Fprintf(b.w, "building: about %d packages to compile (go build -v ./cmd/...; a line every %s)\n", b.total, progressEvery)
	}
}

func (b *buildProgress) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Add(p, b.line)
	return len(p), nil
}

// line takes one line, with its newline; b.mu is held.
func (b *buildProgress) line(l []byte) {
	if path := bytes.TrimRight(l, "\r\n"); importPath.Match(path) {
		b.n++
		b.last = string(path)
		return
	}
	b.w.Write(l)
}

// report writes a progress line if a package was compiled.
func (b *buildProgress) report() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == 0 {
		return
	}
	of := ""
	if b.total >= b.n {
		of = fmt.Sprintf(" of about %d", b.total)
	}
	pkgs := "packages"
	if b.n == 1 && of == "" {
		pkgs = "package"
	}
	fmt.Fprintf(b.w, "building: %d%s %s compiled in %s, the last %s\n", b.n, of, pkgs, time.Since(b.start).Round(time.Second), b.last)
}

// close passes on an unfinished last line and reports the total.
func (b *buildProgress) close() {
	b.mu.Lock()
	if rest := b.buf.Flush(); len(rest) > 0 {
		b.line(append(rest, '\n'))
	}
	b.mu.Unlock()
	b.report()
}

// every reports progress every d until the returned stop is called.
func (b *buildProgress) every(d time.Duration) (stop func()) {
	t := time.NewTicker(d)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-t.C:
				b.report()
			case <-quit:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		close(quit)
		<-done
	}
}
