package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
// -trimpath a clone in another directory would.
func Build(ctx context.Context, modRoot, binDir string, w io.Writer) error {
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-buildvcs=false", "-trimpath", "-o", binDir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = modRoot
	cmd.Stdout = w
	cmd.Stderr = w
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("build: %w", context.Cause(ctx))
		}
		return fmt.Errorf("build binaries (go build ./cmd/... in %s): %w", modRoot, err)
	}
	return nil
}
