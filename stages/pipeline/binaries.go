package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/renn-go/renn/stages/pipeline/config"
)

// BinaryPath returns where the binary of stage s lives in binDir.
func BinaryPath(binDir string, s *config.Stage) string {
	name := s.Run[0]
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(binDir, name)
}

// CheckBinaries reports, as a *config.Error at the run key, every stage of
// the plan whose binary is neither in binDir nor (if modRoot is not empty)
// buildable from modRoot/cmd/<binary>.
func (p *Plan) CheckBinaries(binDir, modRoot string) error {
	var errs []error
	for _, s := range p.Config.Stages {
		if _, err := os.Stat(BinaryPath(binDir, s)); err == nil {
			continue
		}
		if modRoot != "" {
			if fi, err := os.Stat(filepath.Join(modRoot, "cmd", s.Run[0])); err == nil && fi.IsDir() {
				continue
			}
		}
		msg := fmt.Sprintf("unknown binary %q: not in %s", s.Run[0], p.Config.Rel(binDir))
		if modRoot != "" {
			msg += fmt.Sprintf(" and no cmd/%s in %s", s.Run[0], modRoot)
		}
		errs = append(errs, &config.Error{File: p.Config.File, Line: s.RunLine, Key: "stage." + s.Name + ".run", Msg: msg})
	}
	return errors.Join(errs...)
}
