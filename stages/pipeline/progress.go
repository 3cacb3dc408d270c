package pipeline

import (
	"io"
	"os"
	"sync"
)

// Bar is a live status line on a terminal, redrawn in place with \r. Log
// output written through the Bar goes above it, so the two do not tangle.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	line  string
	width int
}

// NewBar returns a Bar drawing on w (a terminal), cutting lines to width
// columns (<= 0: 100).
func NewBar(w io.Writer, width int) *Bar {
	if width <= 0 {
		width = 100
	}
	width = max(width, 10)
	return &Bar{w: w, width: width}
}

// IsTerminal reports whether f is a terminal (a character device), the
// condition for showing a Bar.
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

const clearLine = "\r\x1b[K"

// Set replaces the status line; "" removes it.
func (b *Bar) Set(line string) {
	if r := []rune(line); len(r) > b.width-1 {
		line = string(r[:b.width-2]) + "…"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if line == b.line {
		return
	}
	b.line = line
	io.WriteString(b.w, clearLine+line)
}

// Write writes p (whole log lines) above the status line.
func (b *Bar) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.line != "" {
		io.WriteString(b.w, clearLine)
	}
	n, err := b.w.Write(p)
	if b.line != "" {
		io.WriteString(b.w, b.line)
	}
	return n, err
}
