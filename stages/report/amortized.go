package report

// The "Beyond the paper: amortized inference" section: the family networks
// of pipeline.amortize.toml (trained once on 10x10 grids of a family) on
// unseen models of that family, against per-model RENN, GBP and loopy BP.
// It reads the score stages named amortized_* of its config; it is not part
// of the paper's report (pipeline.paper.toml has no such stages) but printed
// on its own by report --amortized CONFIG.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/renn-go/renn/stages/stageio/outputs"
)

// AmortizedAnchor is the Markdown anchor of the section.
const AmortizedAnchor = "beyond-the-paper-amortized-inference"

// AmortizedParams say which config the section reads and how it was made.
type AmortizedParams struct {
	Config  string // the pipeline config (pipeline.amortize.toml)
	Command string // printed under the section
	// Committed, when no score stage of Config has outputs, takes the
	// section from ResultsFile in Config's data directory: the section as
	// report --amortized wrote it when the stages ran (their test outputs
	// are not committed, the family networks and that file are). Not for
	// report --amortized itself, which writes that file.
	Committed bool
}

// ResultsFile is the file, in the amortized config's data directory, that
// holds the section as report --amortized printed it.
const ResultsFile = "RESULTS.md"

// AmortizedSection returns the section in Markdown, from the amortized_*
// score stages of p.Config that have run.
func AmortizedSection(p AmortizedParams) (string, error) {
	pl, err := readPlan(p.Config)
	if err != nil {
		return "", err
	}
	spec, err := loadSection("amortized")
	if err != nil {
		return "", err
	}
	if matched, _ := withPrefix(pl.insts, spec.Parts); len(outputs.Stages(matched, "score")) == 0 {
		return "", fmt.Errorf("%s: no score stage named %s*", p.Config, spec.Parts[0])
	}
	s, err := newSection(spec, pl, "")
	if err != nil {
		return "", err
	}
	if p.Committed && !slices.ContainsFunc(s.data.Families, func(f *family) bool { return f.Present }) {
		path := filepath.Join(pl.data, ResultsFile)
		if rel, err := filepath.Rel(pl.dir, path); err == nil {
			path = rel // as REPORT.md, beside the config, names it
		}
		return committedSection(path, filepath.Join(pl.dir, path), p.Config)
	}
	md, err := s.markdown()
	if err == nil && p.Command != "" {
		md += fmt.Sprintf("Made by `%s`.\n", p.Command)
	}
	return md, err
}

// committedSection returns the section from file, the committed file that
// report --amortized wrote (named name in the text), saying where it comes
// from.
func committedSection(name, file, config string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("amortized section: none of the score stages of %s has outputs, and the committed results: %w", config, err)
	}
	head, rest, ok := strings.Cut(string(b), "\n")
	if !ok || head != amortizedHeading {
		return "", fmt.Errorf("%s: want the section made by report --amortized, beginning %q", file, amortizedHeading)
	}
	note := fmt.Sprintf("\nThe tables below are %s, written by `report --amortized %s` when its stages ran: the family networks (the network.parquet of its train-renn --amortize stages) and that file are committed, the test models and their outputs are not, so this report takes the section from the file. `go run ./cmd/pipeline run --config %s -j 1` makes them again.\n",
		name, config, config)
	return head + "\n" + note + rest, nil
}

// amortizedHeading is the section's heading.
const amortizedHeading = "## Beyond the paper: amortized inference"
