package report

// The "Any model, within a budget" section (sections/anymodel.toml): auto
// against every single method given the same time budget, from the score
// stages score_budget<seconds> of its own config (pipeline.anymodel.toml),
// not the paper's; report --anymodel CONFIG prints it, --with-anymodel
// CONFIG adds it to the report.

import (
	"fmt"

	"github.com/renn-go/renn/stages/stageio/outputs"
)

// AnyModelAnchor is the Markdown anchor of the section.
const AnyModelAnchor = "any-model-within-a-budget"

// AnyModelParams say which config the section reads and how it was made.
type AnyModelParams struct {
	Config  string // the pipeline config (pipeline.anymodel.toml)
	Command string // printed under the section
}

// AnyModelSection returns the section in Markdown from the score stages of
// p.Config that have run; a config without them is an error.
func AnyModelSection(p AnyModelParams) (string, error) {
	pl, err := readPlan(p.Config)
	if err != nil {
		return "", err
	}
	spec, err := loadSection("anymodel")
	if err != nil {
		return "", err
	}
	if matched, _ := withPrefix(pl.insts, spec.Parts); len(outputs.Stages(matched, "score")) == 0 {
		return "", fmt.Errorf("%s: no score stage named %s", p.Config, quoteJoin(spec.Parts))
	}
	s, err := newSection(spec, pl, "")
	if err != nil {
		return "", err
	}
	md, err := s.markdown()
	if err == nil && p.Command != "" {
		md += fmt.Sprintf("Made by `%s` from the outputs of `%s`.\n", p.Command, p.Config)
	}
	return md, err
}
