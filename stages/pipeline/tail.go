package pipeline

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

// tailWriter keeps the last max lines written to it.
type tailWriter struct {
	mu      sync.Mutex
	max     int
	partial []byte
	done    []string
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.done = append(t.done, strings.TrimRight(string(t.partial[:i]), "\r"))
		t.partial = t.partial[i+1:]
		if len(t.done) > t.max {
			t.done = t.done[len(t.done)-t.max:]
		}
	}
	if len(t.partial) > 64<<10 { // a runaway line: keep its end
		t.partial = t.partial[len(t.partial)-64<<10:]
	}
	return len(p), nil
}

func (t *tailWriter) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.done...)
	if len(t.partial) > 0 {
		out = append(out, string(t.partial))
	}
	if len(out) > t.max {
		out = out[len(out)-t.max:]
	}
	return out
}

// tailFile returns the last n lines of a file; nil if it cannot be read.
func tailFile(path string, n int) []string {
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
