// Package build compiles the stage binaries the pipeline runs, the way
// that makes a binary depend on its source code and the Go version only,
// and says how a binary built by hand differs from that.
package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ModuleRoot walks up from dir to the directory holding go.mod.
func ModuleRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		_, err := os.Stat(filepath.Join(d, "go.mod"))
		if err == nil {
			return d, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod in %s or any parent directory", abs)
		}
		d = parent
	}
}

// Build compiles every binary of the module at modRoot (./cmd/...) into
// binDir with the go command, writing its messages to w. Binaries are built
// with -buildvcs=false and -trimpath so that they depend on the source code
// and the Go version only: with VCS stamping every commit (even one touching
// only README) would change every binary, and so rerun every stage; without
// -trimpath a clone in another directory would. A cold build compiles
// hundreds of packages over minutes: Build says first how many are out of
// date, then every 20 seconds, and at the end, how many it compiled.
func Build(ctx context.Context, modRoot, binDir string, w io.Writer) error {
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	flags := []string{"-buildvcs=false", "-trimpath"}
	fmt.Fprintln(w, "building: listing the packages the binaries need (a first build downloads their modules)")
	prog := &buildProgress{w: w, start: time.Now(), total: outOfDate(ctx, modRoot, flags, w)}
	prog.begin()
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"build", "-v"}, flags...), "-o", binDir+string(filepath.Separator), "./cmd/...")...)
	cmd.Dir = modRoot
	cmd.Stdout = prog
	cmd.Stderr = prog
	stop := prog.every(progressEvery)
	err := cmd.Run()
	stop()
	prog.close()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("build: %w", context.Cause(ctx))
		}
		return fmt.Errorf("build binaries (go build ./cmd/... in %s): %w", modRoot, err)
	}
	return nil
}

// outOfDate returns how many packages a build of ./cmd/... with flags
// would compile, as go list judges them stale (but for commands stale only
// because they are not installed: their compiled package is cached); 0 if
// it cannot tell. The go command's messages (go: downloading ...) go to w.
func outOfDate(ctx context.Context, modRoot string, flags []string, w io.Writer) int {
	const format = `{{if and .Stale (ne .StaleReason "not installed but available in build cache")}}{{.ImportPath}}{{end}}`
	args := append(append([]string{"list"}, flags...), "-deps", "-f", format, "./cmd/...")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = modRoot
	cmd.Stderr = w
	out, err := cmd.Output()
	if err != nil {
		return 0
	}
	return len(strings.Fields(string(out)))
}
