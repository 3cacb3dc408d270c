// Command report writes REPORT.md: every table of the RENN paper with this
// project's numbers, read from the outputs of the paper pipeline, next to
// the paper's, with plots, the machine, the run time, a discussion and the
// sections beyond the paper; or, with --scale, --amortized or --anymodel,
// the declared section of that name alone, from the pipeline config given
// (--with-amortized and --with-anymodel include the latter two in the
// report). Run 'report --help' for the flags.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/renn-go/renn/stages/cli"
	"github.com/renn-go/renn/stages/report"
)

type root struct {
	Config        string `default:"pipeline.paper.toml" help:"The pipeline config that ran the paper's experiments; its stages' outputs are read."`
	Out           string `default:"REPORT.md" help:"The Markdown report to write."`
	Assets        string `default:"report" help:"Directory for the figures (PNG); a relative path is relative to the directory of --out."`
	Bin           string `default:"bin" help:"Directory of the stage binaries, to say which outputs are stale (as 'pipeline status' does); empty to skip."`
	Scale         string `placeholder:"CONFIG" help:"Instead of the report, print (to stdout) the Markdown cost-against-size table of the scale pipeline CONFIG (pipeline.scale.toml): seconds, iterations, peak memory and growth exponents of every method, renn-mp's marginals against GBP's."`
	WithAmortized string `placeholder:"CONFIG" help:"Include in the report the section 'Beyond the paper: amortized inference' from the amortized_* score stages of CONFIG (pipeline.amortize.toml)."`
	Amortized     string `placeholder:"CONFIG" help:"Instead of the report, print (to stdout) the Markdown section 'Beyond the paper: amortized inference' from the amortized_* score stages of CONFIG (pipeline.amortize.toml): the family networks against renn-mp, GBP and BP."`
	AnyModel      string `name:"anymodel" placeholder:"CONFIG" help:"Instead of the report, print (to stdout) the Markdown section 'Any model, within a budget' from the score_budget<seconds> stages of CONFIG (pipeline.anymodel.toml): auto against every single method at the same time budget."`
	WithAnyModel  string `name:"with-anymodel" placeholder:"CONFIG" help:"Include in the report the section 'Any model, within a budget' from the score_budget<seconds> stages of CONFIG (pipeline.anymodel.toml)."`
}

// Validate makes a missing config a usage error (exit 2). Paths are kept as
// given, so the report prints them as the user typed them.
func (r *root) Validate() error {
	alone := countSet(r.Scale, r.Amortized, r.AnyModel)
	if alone > 1 {
		return fmt.Errorf("--scale, --amortized and --anymodel: give one")
	}
	if alone > 0 && countSet(r.WithAmortized, r.WithAnyModel) > 0 {
		return fmt.Errorf("--with-amortized and --with-anymodel are for the report, not with --scale, --amortized or --anymodel")
	}
	files := [][2]string{{"--anymodel", r.AnyModel}, {"--with-anymodel", r.WithAnyModel}, {"--amortized", r.Amortized}, {"--scale", r.Scale}}
	if alone == 0 {
		files = append(files, [2]string{"--config", r.Config}, [2]string{"--with-amortized", r.WithAmortized})
	}
	for _, f := range files {
		// Flags not given are not checked; the report's config always is.
		if st, err := os.Stat(f[1]); (f[1] != "" || f[0] == "--config") && (err != nil || st.IsDir()) {
			return fmt.Errorf("%s %s: not a file", f[0], f[1])
		}
	}
	if alone == 0 && r.Out == "" {
		return fmt.Errorf("--out is empty")
	}
	return nil
}

func (r *root) Run() error {
	for name, config := range map[string]string{"scale": r.Scale, "amortized": r.Amortized, "anymodel": r.AnyModel} {
		if config != "" {
			sec, err := report.Section(name, report.SectionParams{Config: config, Command: "go run ./cmd/report --" + name + " " + config})
			if err == nil {
				fmt.Print(sec)
			}
			return err
		}
	}
	cmd := "go run ./cmd/report --config " + r.Config + " --out " + r.Out
	if r.Assets != "report" {
		cmd += " --assets " + r.Assets
	}
	if r.WithAmortized != "" {
		cmd += " --with-amortized " + r.WithAmortized
	}
	if r.WithAnyModel != "" {
		cmd += " --with-anymodel " + r.WithAnyModel
	}
	err := report.Run(report.Params{Config: r.Config, Out: r.Out, Assets: r.Assets, BinDir: r.Bin, Command: cmd,
		Sections: map[string]string{"amortized": r.WithAmortized, "anymodel": r.WithAnyModel}})
	if err == nil {
		fmt.Fprintf(os.Stderr, "report: wrote %s (figures in %s)\n", r.Out, strings.TrimSuffix(r.Assets, "/"))
	}
	return err
}

func main() {
	cli.Main("report", "Write REPORT.md: the RENN paper's tables next to ours, from the paper pipeline's outputs.", &root{})
}

// countSet counts the non-empty strings.
func countSet(xs ...string) int {
	n := 0
	for _, x := range xs {
		if x != "" {
			n++
		}
	}
	return n
}
