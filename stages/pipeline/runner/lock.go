package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/renn-go/renn/stages/pipeline/config"
)

// LockName is the lock file in a data directory: a run or verify holds it
// so that a second one does not run the same instances into the same
// directories.
const LockName = ".pipeline.lock"

// ErrLocked is returned by LockData when another process holds the lock.
var ErrLocked = errors.New("data directory in use")

// DataLock is a held lock on a data directory.
type DataLock struct{ f *os.File }

// LockData takes the lock of c's data directory (made if need be), without
// waiting: if another process holds it, the error (wrapping ErrLocked)
// names the lock file and the holder's pid. The lock is an flock(2) on
// LockName, so it goes with the process that holds it, however that ends;
// the file itself stays.
func LockData(c *config.Config) (*DataLock, error) {
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	path := filepath.Join(c.DataDir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock data directory: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !held {
		holder := "unknown pid"
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				holder = "pid " + strconv.Itoa(pid)
			}
		}
		f.Close()
		return nil, fmt.Errorf("%w: another pipeline run or verify (%s) holds %s; wait for it to finish",
			ErrLocked, holder, path)
	}
	// The pid is for the message above only; the flock is the lock.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &DataLock{f: f}, nil
}

// Unlock releases the lock.
func (l *DataLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the last descriptor releases the flock
	l.f = nil
	return err
}
