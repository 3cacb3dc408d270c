package report

import "github.com/renn-go/renn/stages/stageio/outputs"

// The facts the readers of stage outputs (stageio/outputs) give: a run's
// (obs), a setting of models (group), and the store of a section's.
type (
	obs    = outputs.Fact
	group  = outputs.Setting
	family = outputs.Family
)

// dataset is what a section read: the facts, and the parts they came from.
type dataset struct {
	outputs.Store
	parts []*part
}

// part is what a section read from the stages of one pattern, with their
// run time.
type part struct {
	outputs.Progress
	RT        runTime // of every instance of the pattern's stages
	StatusErr error
}

func newPart(prefix string) *part { return &part{Progress: outputs.Progress{Prefix: prefix}} }
