package report

// The "Beyond the paper: amortized inference" section: the family networks
// of pipeline.amortize.toml (trained once on 10x10 grids of a family) on
// unseen models of that family, against per-model RENN, GBP and loopy BP.
// It reads the score stages named amortized_* of its config; it is not part
// of the paper's report (pipeline.paper.toml has no such stages) but printed
// on its own by report --amortized CONFIG.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/renn-go/renn/core/metrics"
	"github.com/renn-go/renn/stages/pipeline"
	"github.com/renn-go/renn/stages/score"
)

// AmortizedPrefix begins the name of every score stage of the section.
const AmortizedPrefix = "amortized_"

// AmortizedAnchor is the Markdown anchor of the section.
const AmortizedAnchor = "beyond-the-paper-amortized-inference"

// amortizedMethods are the section's columns, in order: the family
// network's forward pass, forward pass plus refinement, per-model RENN with
// the message net, GBP, then (BPNN's setting) the family network trained
// on the 3x3 windows (blocks3), forward and refined, and GBP on them, and
// loopy BP.
var amortizedMethods = []string{"renn-family-fwd", "renn-family", "renn-mp", "gbp",
	"renn-family-fwd-blocks3", "renn-family-blocks3", "gbp-blocks3", "bp"}

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

// amortizedNotes are printed under a family's heading, by family name.
var amortizedNotes = map[string]string{
	"grid-bpnn": "The setting of Belief Propagation Neural Networks (Kuck et al., NeurIPS 2020): h ~ U(−0.1,0.1), J ~ U(−c,c) with c ~ U(0,5) per model. " +
		"BPNN's published ln Z RMSE over its nine settings is 0.4 at best (loopy BP 5.9–119); their test models are not ours, so compare orders of magnitude. " +
		"Every ln Z here but exact inference's and BP's is a region (Kikuchi) free energy at the answer's beliefs, on the faces (2x2 plaquettes) but for the *-blocks3 columns, " +
		"which run on the overlapping 3x3 windows (build-regions --scheme blocks3: Kikuchi's larger clusters, their regions of counting number 0 dropped): " +
		"renn-family-fwd-blocks3 and renn-family-blocks3 are the family network grid-bpnn-blocks3, trained on those windows, forward alone and refined; gbp-blocks3 is GBP there. No estimate was trained on exact ln Z. " +
		"On the faces the strongly coupled models (max |J| near 4-5) end at stationary points whose ln Z is too high by 0.5-2.6, which the larger clusters remove.",
}

// amortizedFamily is one score stage: a family's test settings.
type amortizedFamily struct {
	name string // the family network's stage (the weights), else the score stage
	sum  *summaryData
}

// AmortizedSection returns the section in Markdown, from the amortized_*
// score stages of p.Config that have run.
func AmortizedSection(p AmortizedParams) (string, error) {
	plan, err := pipeline.Load(p.Config)
	if err != nil {
		return "", err
	}
	var fams []amortizedFamily
	var stages []string
	for _, inst := range plan.Instances {
		name := inst.Stage.Name
		if strings.HasPrefix(name, AmortizedPrefix) && !slices.Contains(stages, name) {
			stages = append(stages, name)
		}
	}
	if len(stages) == 0 {
		return "", fmt.Errorf("%s: no score stage named %s*", p.Config, AmortizedPrefix)
	}
	for _, s := range stages {
		sum, err := readSummary(plan, s)
		if err != nil {
			return "", err
		}
		fams = append(fams, amortizedFamily{name: familyOf(plan, s), sum: sum})
	}
	if p.Committed && !slices.ContainsFunc(fams, func(f amortizedFamily) bool { return f.sum.present }) {
		path := filepath.Join(plan.Config.DataDir, ResultsFile)
		if rel, err := filepath.Rel(plan.Config.Dir, path); err == nil {
			path = rel // as REPORT.md, beside the config, names it
		}
		return committedSection(path, filepath.Join(plan.Config.Dir, path), p.Config)
	}
	sets, err := readGBPSets(plan)
	if err != nil {
		return "", err
	}
	return amortizedMarkdown(fams, sets, p.Command), nil
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

// familyOf names the family of a score stage by the weights its predictions
// read (the input stage given as --weights), else by the stage itself.
func familyOf(plan *pipeline.Plan, stage string) string {
	for _, inst := range instancesOf(plan, stage) {
		for _, in := range inst.Inputs {
			if in.Flag != "pred" || in.From == nil {
				continue
			}
			for _, up := range in.From.Inputs {
				if up.Flag == "weights" && up.From != nil {
					return up.From.Stage.Name
				}
			}
		}
	}
	return strings.TrimPrefix(stage, AmortizedPrefix)
}

// amortizedMarkdown renders the section: one table per family, a row per
// test setting (graph size) and method, then the sets compared with GBP.
func amortizedMarkdown(fams []amortizedFamily, sets []gbpSet, command string) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("%s\n\n", amortizedHeading)
	w("One family network per family, trained on 200 10x10 grids (train-renn --amortize), answers unseen models: ")
	w("its forward pass alone (renn-family-fwd) or followed by per-model refinement (renn-family), against per-model ")
	w("RENN with the message net (renn-mp), GBP and loopy BP (and, in BPNN's setting, the same on overlapping 3x3 windows: the family network grid-bpnn-blocks3 forward and refined, renn-family-fwd-blocks3 and renn-family-blocks3, and GBP, gbp-blocks3), all scored against exact inference. ")
	w("The refinement (train-renn --refine-by gbp, the default) is GBP's own parent-to-child updates, with GBP's tolerance, ")
	w("started from the messages of the forward pass (the sweeps that made the network's inputs, corrected by its output); ")
	w("where they do not converge it continues by gradient steps on the RENN loss (the message net's loop) from the forward pass, ")
	w("so on models where GBP converges renn-family ends at GBP's fixed point. ")
	w("Mean |ΔP| is the mean |error| of the variable marginals; ln Z RMSE is the root mean square of the ln Z error over the models; ")
	w("seconds are wall time per model.\n\n")
	for _, f := range fams {
		w("### %s\n\n", f.name)
		if note := amortizedNotes[f.name]; note != "" {
			w("%s\n\n", note)
		}
		if !f.sum.present {
			w("Not run yet (score stage %s).\n\n", f.sum.stage)
			continue
		}
		w("| models | method | l1 | mean \\|ΔP\\| | ln Z RMSE | seconds per model |\n|---|---|---:|---:|---:|---:|\n")
		for _, s := range settingsOf(f.sum) {
			for _, m := range amortizedMethods {
				l1 := f.sum.cells[cellKey{s, m, metrics.L1}]
				if !l1.ok {
					continue
				}
				dp := f.sum.cells[cellKey{s, m, metrics.VarMeanAbs}]
				lz := f.sum.cells[cellKey{s, m, metrics.LogZErr}]
				sec := f.sum.cells[cellKey{s, m, score.Seconds}]
				w("| %s (%d) | %s | %s | %s | %s | %s |\n", gridName(s), l1.n, m, fmtStat(l1, 4), fmtStat(dp, 4), fmtRMSE(lz), fmtStat(sec, 3))
			}
		}
		w("\n")
	}
	b.WriteString(gbpMarkdown(sets))
	if command != "" {
		w("Made by `%s`.\n", command)
	}
	return b.String()
}

// settingsOf lists the settings of a summary, smallest first.
func settingsOf(d *summaryData) []setting {
	var out []setting
	for k := range d.cells {
		if !slices.Contains(out, k.setting) {
			out = append(out, k.setting)
		}
	}
	slices.SortFunc(out, func(a, b setting) int {
		if c := strings.Compare(a.graph, b.graph); c != 0 {
			return c
		}
		return a.size - b.size
	})
	return out
}

// gridName writes a grid setting as LxL, any other as its graph and size.
func gridName(s setting) string {
	if l := int(math.Round(math.Sqrt(float64(s.size)))); s.graph == "grid" && l*l == s.size {
		return fmt.Sprintf("%dx%d", l, l)
	}
	return fmt.Sprintf("%s n=%d", s.graph, s.size)
}

func fmtStat(s stat, digits int) string {
	if !s.ok {
		return "–"
	}
	return fmt.Sprintf("%.*f", digits, s.mean)
}

// fmtRMSE is the root mean square of |error| from its mean and population
// standard deviation: sqrt(mean² + std²).
func fmtRMSE(s stat) string {
	if !s.ok {
		return "–"
	}
	return fmt.Sprintf("%.3f", math.Hypot(s.mean, s.std))
}
