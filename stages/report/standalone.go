package report

// A declared section written on its own (report --scale, --amortized,
// --anymodel) or, for a section with a config of its own (own_config),
// within REPORT.md from that config.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/renn-go/renn/stages/stageio/outputs"
)

// SectionParams say which pipeline config a declared section reads and
// how it was made.
type SectionParams struct {
	Config string // the pipeline config whose stages the section reads
	// Command is how the section was made, for its text (Var "command").
	Command string
	// BinDir holds the stage binaries, to say which outputs are stale;
	// empty skips the check.
	BinDir string
}

// Section writes the declared section name (sections/<name>.toml) from the
// outputs of the stages of p.Config.
func Section(name string, p SectionParams) (string, error) {
	spec, err := loadSection(name)
	if err != nil {
		return "", err
	}
	s, err := newSection(spec, p)
	if err != nil {
		return "", err
	}
	return s.write(false)
}

// newSection reads the stages of spec from the plan of p.Config.
func newSection(spec *sectionSpec, p SectionParams) (*section, error) {
	pl, err := readPlan(p.Config)
	if err != nil {
		return nil, err
	}
	if spec.Require != "" {
		matched := slices.DeleteFunc(slices.Clone(pl.insts), func(i *instance) bool { return !outputs.HasPrefix(i.Stage, spec.Parts) })
		if len(outputs.Stages(matched, spec.Require)) == 0 {
			return nil, fmt.Errorf("%s: no %s stage whose name begins with %s", p.Config, spec.Require, quoteJoin(spec.Parts))
		}
	}
	s, err := prepare(spec, &dataset{})
	if err != nil {
		return nil, err
	}
	s.plan, s.vars = pl, map[string]string{"command": p.Command, "config": p.Config}
	return s, s.read(p.BinDir)
}

// write writes the section; in REPORT.md (inReport), a section declaring
// a committed file is that file when none of its stages has outputs.
func (s *section) write(inReport bool) (string, error) {
	ran := slices.ContainsFunc(s.data.Obs, func(o *obs) bool { return slices.Contains(s.spec.Parts, o.Part) })
	if inReport && s.spec.Committed != "" && !ran {
		return s.committed()
	}
	return s.markdown()
}

// committed is the section from its committed file in the data directory
// of its config (named in the text as from beside the config), after the
// file's heading a note saying where it comes from.
func (s *section) committed() (string, error) {
	path := filepath.Join(s.plan.data, s.spec.Committed)
	if rel, err := filepath.Rel(s.plan.dir, path); err == nil {
		path = rel
	}
	b, err := os.ReadFile(filepath.Join(s.plan.dir, path))
	if err != nil {
		return "", fmt.Errorf("section %s: none of the stages of %s has outputs, and the committed results: %w", s.spec.Title, s.plan.config, err)
	}
	heading := "## " + s.spec.Title
	head, rest, ok := strings.Cut(string(b), "\n")
	if !ok || head != heading {
		return "", fmt.Errorf("%s: want the section as written on its own, beginning %q", path, heading)
	}
	s.vars["file"] = path
	var note strings.Builder
	if err := s.tmpl.ExecuteTemplate(&note, "committed", scope{s: s}); err != nil {
		return "", fmt.Errorf("section %s: %w", s.spec.Title, err)
	}
	return head + "\n" + note.String() + rest, nil
}
