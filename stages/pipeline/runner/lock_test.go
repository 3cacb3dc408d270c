package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLockData(t *testing.T) {
	p := newProject(t, chain)
	c := p.plan(t).Config
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
