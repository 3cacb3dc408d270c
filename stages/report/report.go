package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio/outputs"
)

// Params are the report parameters.
type Params struct {
	Config string // the pipeline config that ran the paper's experiments
	Out    string // the Markdown file to write
	// Assets is the directory the figures are written to; a relative path
	// is relative to the directory of Out, and the Markdown links to them
	// relative to Out.
	Assets string
	// BinDir holds the stage binaries, to say which outputs are stale;
	// empty skips the check.
	BinDir string
	// Command is how the report was made, printed at its top.
	Command string
	// Sections are the pipeline configs of the sections that read their
	// own (own_config), by name: REPORT.md has such a section only when
	// its config is given.
	Sections map[string]string
}

// Run reads the pipeline's outputs and writes the report and its figures:
// the paper's section (its tables, discussion and plots), then the
// sections beyond the paper.
func Run(p Params) error {
	if p.Config == "" || p.Out == "" {
		return errors.New("need a pipeline config and an output file")
	}
	spec, err := loadSection("paper")
	if err != nil {
		return err
	}
	s, err := newSection(spec, SectionParams{Config: p.Config})
	if err != nil {
		return err
	}
	doc := &docData{Config: p.Config, Command: or(p.Command, fmt.Sprintf("go run ./cmd/report --config %s --out %s", p.Config, p.Out)), Machine: ThisMachine()}
	figs, beyond, err := doc.sections(p, spec.Sections)
	if err != nil {
		return err
	}
	// The sections' stages are not the paper's: their run time is theirs.
	paperInsts := slices.DeleteFunc(slices.Clone(s.plan.insts), func(i *instance) bool { return outputs.HasPrefix(i.Stage, beyond) })
	if doc.RT, doc.StatusErr, err = readRunTime(s.plan, paperInsts, p.BinDir); err != nil {
		return err
	}
	s.filled = map[int]*tableDoc{}
	for i := range spec.paper.Tables {
		t := &spec.paper.Tables[i]
		md, err := s.build(&spec.Tables[i], binding{})
		if err != nil {
			return err
		}
		s.filled[t.Number] = s.fill(t, md)
		doc.Tables = append(doc.Tables, *s.filled[t.Number])
	}
	if doc.Discussion, err = s.markdown(); err != nil {
		return err
	}
	plots, err := s.figures()
	if err == nil {
		doc.Figures, err = writeFigures(p, append(plots, figs...))
	}
	var b strings.Builder
	if err == nil {
		err = s.tmpl.ExecuteTemplate(&b, "report", doc)
	}
	if err != nil {
		return err
	}
	return formats.WriteTextFile(p.Out, b.String())
}

// sections writes the sections beyond the paper into doc, and returns
// the figures and stage patterns of those that read the paper's config.
func (doc *docData) sections(p Params, names []string) (figs []figureFile, parts []string, err error) {
	for _, name := range names {
		spec, err := loadSection(name)
		if err != nil {
			return nil, nil, err
		}
		sp := SectionParams{Config: p.Config, BinDir: p.BinDir}
		if spec.OwnConfig {
			if sp.Config = p.Sections[spec.name]; sp.Config == "" {
				continue
			}
			sp.BinDir, sp.Command = "", "go run ./cmd/report --"+spec.name+" "+sp.Config
		}
		s, err := newSection(spec, sp)
		if err != nil {
			return nil, nil, err
		}
		md, err := s.write(true)
		if err != nil {
			return nil, nil, err
		}
		doc.Sections = append(doc.Sections, sectionDoc{Title: spec.Title, Anchor: spec.Anchor, Markdown: md, Wrap: spec.WrapAnchor})
		if !spec.OwnConfig {
			more, err := s.figures()
			if err != nil {
				return nil, nil, err
			}
			figs, parts = append(figs, more...), append(parts, spec.Parts...)
		}
	}
	return figs, parts, nil
}

// docData is what REPORT.md shows (sections/report.tmpl).
type docData struct {
	Config, Command string
	Machine         Machine
	RT              runTime // of the paper's stages
	StatusErr       error
	Discussion      string
	Tables          []tableDoc
	Sections        []sectionDoc
	Figures         []figureFile
}

// sectionDoc is a section beyond the paper; Wrap puts its anchor before it.
type sectionDoc struct {
	Title, Anchor, Markdown string
	Wrap                    bool
}

// writeFigures writes the figures into the assets directory and returns
// them with the links the report gives them.
func writeFigures(p Params, figs []figureFile) ([]figureFile, error) {
	outDir := filepath.Dir(p.Out)
	assets := or(p.Assets, "report")
	if !filepath.IsAbs(assets) {
		assets = filepath.Join(outDir, assets)
	}
	if len(figs) > 0 {
		if err := os.MkdirAll(assets, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", assets, err)
		}
	}
	for i, f := range figs {
		path := filepath.Join(assets, f.File)
		if err := f.fig.WritePNG(path); err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(outDir, path)
		if err != nil {
			rel = path
		}
		figs[i].Link = filepath.ToSlash(rel)
	}
	return figs, nil
}

// latexToMarkdown turns the LaTeX of a caption into plain text.
var latexToMarkdown = strings.NewReplacer(
	`\gamma`, "γ", `\ell_1`, "ℓ1", `\rho`, "ρ", `\lambda`, "λ", `\log{Z}`, "log Z",
	`\textit{`, "", `}`, "", `{`, "", "$", "", `~`, " ", `\ref`, "",
)

// Machine describes the computer the report is written on.
type Machine struct {
	CPU      string // model name from /proc/cpuinfo
	CPUs     int    // logical CPUs
	MemoryGB float64
	Go       string // Go version of the report binary
	OS, Arch string
}

// ThisMachine reads the description of this computer; parts it cannot
// find are left empty.
func ThisMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
		if v, err := strconv.ParseFloat(strings.Fields(kb)[0], 64); err == nil {
			m.MemoryGB = v / (1 << 20)
		}
	}
	return m
}

// procField returns the value of the first "key: value" line of a /proc
// file, or "".
func procField(path, key string) string {
	b, _ := os.ReadFile(path) // a file it cannot read has no fields
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
