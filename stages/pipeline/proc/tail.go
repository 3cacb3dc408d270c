package proc

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
)

// teeWriter writes to a file and keeps a tail; a failing file write does not
// stop the tail.
type teeWriter struct {
	file *os.File
	tail *tailWriter
}

func (t *teeWriter) Write(p []byte) (int, error) {
	t.tail.Write(p)
	return t.file.Write(p)
}

// Lines splits output that arrives in chunks into whole lines, for the
// writers that digest a subprocess's output line by line: the tail of a
// job's stderr, and go build's progress in package build. Its user holds
// whatever lock guards it.
type Lines struct {
	partial []byte // the unfinished last line
}

// Add appends p and hands each line it completes, with its newline, to f,
// which must not keep it.
func (b *Lines) Add(p []byte, f func(line []byte)) {
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			return
		}
		f(b.partial[:i+1])
		b.partial = b.partial[i+1:]
	}
}

// Flush returns the unfinished last line, if any, and forgets it.
func (b *Lines) Flush() []byte {
	p := b.partial
	b.partial = nil
	return p
}

// tailWriter keeps the last max lines written to it.
type tailWriter struct {
	mu   sync.Mutex
	max  int
	buf  Lines
	done []string
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Add(p, func(l []byte) {
		t.done = append(t.done, strings.TrimRight(string(l), "\r\n"))
		if len(t.done) > t.max {
			t.done = t.done[len(t.done)-t.max:]
		}
	})
	if len(t.buf.partial) > 64<<10 { // a runaway line: keep its end
		t.buf.partial = t.buf.partial[len(t.buf.partial)-64<<10:]
	}
	return len(p), nil
}

func (t *tailWriter) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.done...)
	if len(t.buf.partial) > 0 {
		out = append(out, string(t.buf.partial))
	}
	if len(out) > t.max {
		out = out[len(out)-t.max:]
	}
	return out
}

// TailFile returns the last n lines of a file; nil if it cannot be read.
func TailFile(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 256<<10 {
		f.Seek(-256<<10, io.SeekEnd) // the tail of a big log is at its end
	}
	t := &tailWriter{max: n}
	sc := bufio.NewReader(f)
	io.Copy(t, sc)
	return t.lines()
}
