package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/renn-go/renn/stages/pipeline/internal/pipetest"
)

func TestLockData(t *testing.T) {
	p := newProject(t, pipetest.Chain)
	c := p.Plan(t).Config
	l, err := LockData(c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockData(c)
	path := filepath.Join(c.DataDir, LockName)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("second lock: %v, want ErrLocked naming %s and pid %d", err, path, os.Getpid())
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l, err = LockData(c)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l.Unlock()
}
