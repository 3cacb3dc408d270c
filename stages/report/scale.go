package report

import (
	"fmt"
	"maps"
)

// ScaleParams are the parameters of the cost-against-size table
// (README, "Performance"), read from a pipeline such as pipeline.scale.toml:
// one model per size, each method in a stage of its own so that the
// stamp's peak memory is that method's. The defaults are declared in
// sections/scale.toml.
type ScaleParams struct {
	Config string // the pipeline config whose stages ran the methods
	// Reference is the method whose variable marginals the Compare methods
	// are measured against (mean |ΔP(x_i)|); "" compares nothing.
	Reference string
	Compare   []string
	// MinFitN is the fewest variables of a setting that enters the fitted
	// growth exponents (smaller ones are dominated by fixed costs).
	MinFitN int
	// Short maps a method to the name of its short run (the same method on
	// the same models stopped after a few steps): not a column of its own,
	// it splits the method's CPU seconds into its steps and the rest.
	Short map[string]string
	// Command is how the table was made, printed under it.
	Command string
}

// DefaultScaleParams are the declared defaults for config.
func DefaultScaleParams(config string) ScaleParams {
	spec, err := loadSection("scale")
	if err != nil {
		panic(err) // the embedded declarations are checked by the tests
	}
	c := spec.Cost
	return ScaleParams{Config: config, Reference: c.Reference, Compare: c.Compare, MinFitN: c.MinFitN, Short: maps.Clone(c.Short)}
}

// ScaleTable reads the outputs of the pipeline p.Config and returns the
// cost-against-size tables in Markdown.
func ScaleTable(p ScaleParams) (string, error) {
	pl, err := readPlan(p.Config)
	if err != nil {
		return "", err
	}
	spec, err := loadSection("scale")
	if err != nil {
		return "", err
	}
	spec.Cost.Reference, spec.Cost.Compare, spec.Cost.MinFitN, spec.Cost.Short = p.Reference, p.Compare, p.MinFitN, p.Short
	s, err := prepare(spec, &dataset{})
	if err != nil {
		return "", err
	}
	s.plan, s.vars = pl, map[string]string{"command": p.Command, "config": p.Config}
	if err := s.read(""); err != nil {
		return "", err
	}
	if len(s.data.Settings) == 0 {
		return "", fmt.Errorf("%s: no stage instance with estimates.parquet has completed (%d to run): run the pipeline first", p.Config, s.data.parts[0].Instances)
	}
	return s.markdown()
}
