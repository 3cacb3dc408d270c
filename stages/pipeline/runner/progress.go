package runner

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/renn-go/renn/stages/pipeline"
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

// Progress holds what the progress display shows: how many instances of
// the run have settled, and which are running since when. It is safe for
// concurrent use.
type Progress struct {
	mu       sync.Mutex
	bar      *Bar // nil: nothing is drawn
	total    int
	finished int
	running  map[*pipeline.Instance]time.Time
}

// NewProgress returns the progress of a run, drawn on bar (nil: not drawn).
func NewProgress(bar *Bar) *Progress {
	return &Progress{bar: bar, running: map[*pipeline.Instance]time.Time{}}
}

// add counts n more instances (n < 0: fewer) in the run.
func (t *Progress) add(n int) {
	t.mu.Lock()
	t.total += n
	t.mu.Unlock()
}

// Start records that inst started running at at.
func (t *Progress) Start(inst *pipeline.Instance, at time.Time) {
	t.mu.Lock()
	t.running[inst] = at
	t.mu.Unlock()
	t.draw()
}

func (t *Progress) finish(inst *pipeline.Instance) {
	t.mu.Lock()
	delete(t.running, inst)
	t.finished++
	t.mu.Unlock()
	t.draw()
}

// runningList names the running instances with their elapsed times, oldest first.
func (t *Progress) runningList() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	type item struct {
		id string
		at time.Time
	}
	var items []item
	for inst, at := range t.running {
		items = append(items, item{inst.ID, at})
	}
	slices.SortFunc(items, func(a, b item) int { return a.at.Compare(b.at) })
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = fmt.Sprintf("%s (%s)", it.id, time.Since(it.at).Round(time.Second))
	}
	return strings.Join(parts, ", ")
}

func (t *Progress) draw() {
	if t.bar == nil {
		return
	}
	t.mu.Lock()
	done, total := t.finished, t.total
	t.mu.Unlock()
	const width = 20
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	line := fmt.Sprintf("[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat("-", width-filled), done, total)
	if s := t.runningList(); s != "" {
		line += "  running: " + s
	}
	t.bar.Set(line)
}

// Clear removes the progress line.
func (t *Progress) Clear() {
	if t.bar != nil {
		t.bar.Set("")
	}
}
