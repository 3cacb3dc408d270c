package formats

import (
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
)

// File names of the tables; every stage writes them inside its --out
// directory.
const (
	ModelsFile    = "models.parquet"
	ModelInfoFile = "model_info.parquet"
	RegionsFile   = "regions.parquet"
	MarginalsFile = "marginals.parquet"
	EstimatesFile = "estimates.parquet"
	SamplesFile   = "samples.parquet"
	ScoresFile    = "scores.parquet"
	SummaryFile   = "summary.parquet"
	CurvesFile    = "curves.parquet"
	StderrsFile   = "stderrs.parquet"
)

// FactorRow is one factor of a model: a row of models.parquet.
// LogTable is row-major over Vars, the last variable fastest; -Inf is a zero
// potential.
type FactorRow struct {
	ModelID, FactorID int32
	Vars              []int32
	LogTable          []float64
}

var modelsTable = table[FactorRow]{cols: []column[FactorRow]{
	int32Column("model_id", func(r *FactorRow) *int32 { return &r.ModelID }),
	int32Column("factor_id", func(r *FactorRow) *int32 { return &r.FactorID }),
	int32ListColumn("vars", func(r *FactorRow) *[]int32 { return &r.Vars }),
	float64ListColumn("log_table", func(r *FactorRow) *[]float64 { return &r.LogTable }),
}}

// ModelInfoRow describes one model: a row of model_info.parquet.
type ModelInfoRow struct {
	ModelID int32
	Name    string
	Cards   []int32 // cardinality of every variable
	Graph   string  // grid, complete, uai, ...
	Gamma   float64
	Seed    int64
	Source  string
	// Hidden lists the model's hidden (never observed) variables in
	// increasing order; empty when every variable is visible. It is the
	// optional column "hidden": written only when some model of the file has
	// hidden variables, so files without any stay as they were, and files
	// without the column read as all visible.
	Hidden []int32
}

var modelInfoTable = table[ModelInfoRow]{cols: []column[ModelInfoRow]{
	int32Column("model_id", func(r *ModelInfoRow) *int32 { return &r.ModelID }),
	stringColumn("name", func(r *ModelInfoRow) *string { return &r.Name }),
	int32ListColumn("cards", func(r *ModelInfoRow) *[]int32 { return &r.Cards }),
	stringColumn("graph", func(r *ModelInfoRow) *string { return &r.Graph }),
	float64Column("gamma", func(r *ModelInfoRow) *float64 { return &r.Gamma }),
	int64Column("seed", func(r *ModelInfoRow) *int64 { return &r.Seed }),
	stringColumn("source", func(r *ModelInfoRow) *string { return &r.Source }),
}}

// hiddenColumn is model_info's optional column of hidden variables.
var hiddenColumn = int32ListColumn("hidden", func(r *ModelInfoRow) *[]int32 { return &r.Hidden })

// modelInfoWithHidden is model_info with the hidden column.
var modelInfoWithHidden = table[ModelInfoRow]{cols: append(append([]column[ModelInfoRow](nil), modelInfoTable.cols...), hiddenColumn)}

// modelInfoFor reads model_info with the hidden column when the file has
// one.
func modelInfoFor(sc *arrow.Schema) (table[ModelInfoRow], error) {
	if sc.HasField(hiddenColumn.name) {
		return modelInfoWithHidden, nil
	}
	return modelInfoTable, nil
}

// RegionRow is one region of a region graph: a row of regions.parquet.
type RegionRow struct {
	ModelID, RegionID, Level int32
	Vars, Factors            []int32
	Counting                 float64
	Parents                  []int32 // region ids of the parents
	Scheme                   string
}

var regionsTable = table[RegionRow]{cols: []column[RegionRow]{
	int32Column("model_id", func(r *RegionRow) *int32 { return &r.ModelID }),
	int32Column("region_id", func(r *RegionRow) *int32 { return &r.RegionID }),
	int32Column("level", func(r *RegionRow) *int32 { return &r.Level }),
	int32ListColumn("vars", func(r *RegionRow) *[]int32 { return &r.Vars }),
	int32ListColumn("factors", func(r *RegionRow) *[]int32 { return &r.Factors }),
	float64Column("counting", func(r *RegionRow) *float64 { return &r.Counting }),
	int32ListColumn("parents", func(r *RegionRow) *[]int32 { return &r.Parents }),
	stringColumn("scheme", func(r *RegionRow) *string { return &r.Scheme }),
}}

// MarginalRow is one variable or factor marginal: a row of
// marginals.parquet. Probs follows the ordering rule of FactorRow.LogTable.
type MarginalRow struct {
	ModelID int32
	Method  string
	Kind    string // "var" or "factor"
	Index   int32  // variable or factor id
	Vars    []int32
	Probs   []float64
}

var marginalsTable = table[MarginalRow]{cols: []column[MarginalRow]{
	int32Column("model_id", func(r *MarginalRow) *int32 { return &r.ModelID }),
	stringColumn("method", func(r *MarginalRow) *string { return &r.Method }),
	stringColumn("kind", func(r *MarginalRow) *string { return &r.Kind }),
	int32Column("index", func(r *MarginalRow) *int32 { return &r.Index }),
	int32ListColumn("vars", func(r *MarginalRow) *[]int32 { return &r.Vars }),
	float64ListColumn("probs", func(r *MarginalRow) *[]float64 { return &r.Probs }),
}}

// StderrRow holds Monte Carlo standard errors: a row of stderrs.parquet,
// written beside marginals.parquet by run-baselines for the methods that
// estimate them (gibbs, pt). Kind StderrVar: those of variable Index's
// marginal, one entry per state like the variable's Probs. Kind
// StderrLogZ: that of the method's ln Z estimate (pt), one entry, Index 0.
// NaN where the method could not estimate one.
type StderrRow struct {
	ModelID int32
	Method  string
	// Kind is StderrVar or StderrLogZ; files without the column "kind"
	// (written before it) hold variable rows only.
	Kind   string
	Index  int32 // variable id (StderrVar)
	Stderr []float64
}

// Kinds of StderrRow.
const (
	StderrVar  = "var"
	StderrLogZ = "log_z"
)

var stderrsTable = table[StderrRow]{cols: []column[StderrRow]{
	int32Column("model_id", func(r *StderrRow) *int32 { return &r.ModelID }),
	stringColumn("method", func(r *StderrRow) *string { return &r.Method }),
	stringColumn("kind", func(r *StderrRow) *string { return &r.Kind }),
	int32Column("index", func(r *StderrRow) *int32 { return &r.Index }),
	float64ListColumn("stderr", func(r *StderrRow) *[]float64 { return &r.Stderr }),
}, derivable: []Derivable{stderrKindDerivable}}

// stderrsFor reads stderrs.parquet with its kind column, or without it
// (every row a variable's) from a file written before it.
func stderrsFor(sc *arrow.Schema) (table[StderrRow], error) {
	return stderrsTable.lacking(sc), nil
}

// EstimateRow is one method's estimate on one model: a row of
// estimates.parquet.
type EstimateRow struct {
	ModelID    int32
	Method     string
	LogZ       float64 // -F for free-energy methods
	FreeEnergy float64
	Iterations int32
	// Converged is true exactly when Status is StatusConverged.
	Converged bool
	// Status says why the method's call ended: one of Statuses (the names
	// of infer.Status). Empty in a row to write, it is derived as for a file
	// written before the column (see EstimateStatus).
	Status  string
	Seconds float64
	Params  string // JSON
	// Certificate says what backs the answer (infer.Result.Certificate:
	// exact, converged, monte-carlo, bounds or none), for methods that
	// state it (auto); "" otherwise. It is the optional column
	// "certificate": written only when some row of the file has one, so
	// files without any stay as they were, and files without the column
	// read as "".
	Certificate string
}

var estimatesTable = table[EstimateRow]{cols: []column[EstimateRow]{
	int32Column("model_id", func(r *EstimateRow) *int32 { return &r.ModelID }),
	stringColumn("method", func(r *EstimateRow) *string { return &r.Method }),
	float64Column("log_z", func(r *EstimateRow) *float64 { return &r.LogZ }),
	float64Column("free_energy", func(r *EstimateRow) *float64 { return &r.FreeEnergy }),
	int32Column("iterations", func(r *EstimateRow) *int32 { return &r.Iterations }),
	boolColumn("converged", func(r *EstimateRow) *bool { return &r.Converged }),
	stringColumn("status", func(r *EstimateRow) *string { return &r.Status }),
	float64Column("seconds", func(r *EstimateRow) *float64 { return &r.Seconds }),
	stringColumn("params", func(r *EstimateRow) *string { return &r.Params }),
}, derivable: []Derivable{statusDerivable}}

// certificateColumn is estimates' optional column of certificates.
var certificateColumn = stringColumn("certificate", func(r *EstimateRow) *string { return &r.Certificate })

// estimatesWithCertificate is estimates with the certificate column.
var estimatesWithCertificate = table[EstimateRow]{cols: append(append([]column[EstimateRow](nil), estimatesTable.cols...), certificateColumn),
	derivable: estimatesTable.derivable}

// SampleRow is one sample of a model: a row of samples.parquet.
type SampleRow struct {
	ModelID int32
	Split   string  // "train" or "test"
	X       []int32 // state index per variable
	LogP    float64 // exact log-probability
}

var samplesTable = table[SampleRow]{cols: []column[SampleRow]{
	int32Column("model_id", func(r *SampleRow) *int32 { return &r.ModelID }),
	stringColumn("split", func(r *SampleRow) *string { return &r.Split }),
	int32ListColumn("x", func(r *SampleRow) *[]int32 { return &r.X }),
	float64Column("log_p", func(r *SampleRow) *float64 { return &r.LogP }),
}}

// ScoreRow is one metric of one method on one model: a row of
// scores.parquet. Models and Name say which model it is when several
// models directories (shards, whose model ids repeat) are scored together.
type ScoreRow struct {
	ModelID int32
	Models  string // the models directory the model came from
	Name    string // the model's name in model_info
	Method  string
	Metric  string
	Value   float64
}

var scoresTable = table[ScoreRow]{cols: []column[ScoreRow]{
	int32Column("model_id", func(r *ScoreRow) *int32 { return &r.ModelID }),
	stringColumn("models", func(r *ScoreRow) *string { return &r.Models }),
	stringColumn("name", func(r *ScoreRow) *string { return &r.Name }),
	stringColumn("method", func(r *ScoreRow) *string { return &r.Method }),
	stringColumn("metric", func(r *ScoreRow) *string { return &r.Metric }),
	float64Column("value", func(r *ScoreRow) *float64 { return &r.Value }),
}}

// CurveRow is one learning step: a row of curves.parquet.
type CurveRow struct {
	ModelID                    int32
	Method                     string
	Iteration                  int32
	TrainNLL, TestNLL, Seconds float64
}

var curvesTable = table[CurveRow]{cols: []column[CurveRow]{
	int32Column("model_id", func(r *CurveRow) *int32 { return &r.ModelID }),
	stringColumn("method", func(r *CurveRow) *string { return &r.Method }),
	int32Column("iteration", func(r *CurveRow) *int32 { return &r.Iteration }),
	float64Column("train_nll", func(r *CurveRow) *float64 { return &r.TrainNLL }),
	float64Column("test_nll", func(r *CurveRow) *float64 { return &r.TestNLL }),
	float64Column("seconds", func(r *CurveRow) *float64 { return &r.Seconds }),
}}

// SummaryRow is one metric of one method over a group of models: a row of
// summary.parquet. Group holds the values of the file's group columns, in
// order.
type SummaryRow struct {
	Group     []string
	Method    string
	Metric    string
	Mean, Std float64 // Std is the population standard deviation
	N         int32
}

// summaryFixed are the columns of summary.parquet after the group columns.
var summaryFixed = []column[SummaryRow]{
	stringColumn("method", func(r *SummaryRow) *string { return &r.Method }),
	stringColumn("metric", func(r *SummaryRow) *string { return &r.Metric }),
	float64Column("mean", func(r *SummaryRow) *float64 { return &r.Mean }),
	float64Column("std", func(r *SummaryRow) *float64 { return &r.Std }),
	int32Column("n", func(r *SummaryRow) *int32 { return &r.N }),
}

// summaryTable describes summary.parquet with the given group columns in
// front of the fixed ones.
func summaryTable(groupCols []string) table[SummaryRow] {
	cols := make([]column[SummaryRow], 0, len(groupCols)+len(summaryFixed))
	for k, name := range groupCols {
		cols = append(cols, stringColumn(name, func(r *SummaryRow) *string { return &r.Group[k] }))
	}
	cols = append(cols, summaryFixed...)
	ng := len(groupCols)
	return table[SummaryRow]{
		cols: cols,
		prepare: func(rows []SummaryRow) {
			backing := make([]string, ng*len(rows))
			for i := range rows {
				rows[i].Group = backing[i*ng : (i+1)*ng : (i+1)*ng]
			}
		},
	}
}

// checkGroupCols rejects group column names that are empty, repeated or
// taken by a fixed column.
func checkGroupCols(groupCols []string) error {
	for i, name := range groupCols {
		if name == "" {
			return fmt.Errorf("group column %d has no name", i)
		}
		if slices.Contains(groupCols[:i], name) {
			return fmt.Errorf("group column %q appears twice", name)
		}
		for _, c := range summaryFixed {
			if c.name == name {
				return fmt.Errorf("group column %q clashes with a fixed column", name)
			}
		}
	}
	return nil
}

// summaryTableFor reads the group columns off a summary file's schema: the
// columns before "method".
func summaryTableFor(sc *arrow.Schema) (table[SummaryRow], error) {
	var groupCols []string
	for _, f := range sc.Fields() {
		if f.Name == "method" {
			// WriteSummary's rules, so whatever is read can be written back.
			if err := checkGroupCols(groupCols); err != nil {
				return table[SummaryRow]{}, err
			}
			return summaryTable(groupCols), nil
		}
		groupCols = append(groupCols, f.Name)
	}
	return table[SummaryRow]{}, errors.New(`missing column "method"`)
}

// WriteModels writes the factors of models to path (models.parquet).
func WriteModels(path string, rows []FactorRow, prov Provenance) error {
	return writeTable(path, modelsTable, rows, prov, defaultWrite)
}

// ReadModels reads a file written by WriteModels.
func ReadModels(path string) ([]FactorRow, Provenance, error) {
	return readTable(path, fixed(modelsTable))
}

// WriteModelInfo writes model descriptions to path (model_info.parquet).
// The hidden column is written only when some row has hidden variables.
func WriteModelInfo(path string, rows []ModelInfoRow, prov Provenance) error {
	t := modelInfoTable
	for i := range rows {
		if len(rows[i].Hidden) > 0 {
			t = modelInfoWithHidden
			break
		}
	}
	return writeTable(path, t, rows, prov, defaultWrite)
}

// ReadModelInfo reads a file written by WriteModelInfo.
func ReadModelInfo(path string) ([]ModelInfoRow, Provenance, error) {
	rows, prov, err := readTable(path, modelInfoFor)
	for i := range rows {
		if len(rows[i].Hidden) == 0 {
			rows[i].Hidden = nil // one form for "every variable visible"
		}
	}
	return rows, prov, err
}

// WriteRegions writes region graphs to path (regions.parquet).
func WriteRegions(path string, rows []RegionRow, prov Provenance) error {
	return writeTable(path, regionsTable, rows, prov, defaultWrite)
}

// ReadRegions reads a file written by WriteRegions.
func ReadRegions(path string) ([]RegionRow, Provenance, error) {
	return readTable(path, fixed(regionsTable))
}

// WriteMarginals writes marginals to path (marginals.parquet).
func WriteMarginals(path string, rows []MarginalRow, prov Provenance) error {
	return writeTable(path, marginalsTable, rows, prov, defaultWrite)
}

// ReadMarginals reads a file written by WriteMarginals.
func ReadMarginals(path string) ([]MarginalRow, Provenance, error) {
	return readTable(path, fixed(marginalsTable))
}

// WriteStderrs writes standard errors to path (stderrs.parquet).
func WriteStderrs(path string, rows []StderrRow, prov Provenance) error {
	return writeTable(path, stderrsTable, rows, prov, defaultWrite)
}

// ReadStderrs reads a file written by WriteStderrs (or before the kind
// column: its rows get Kind StderrVar).
func ReadStderrs(path string) ([]StderrRow, Provenance, error) {
	rows, prov, err := readTable(path, stderrsFor)
	for i := range rows {
		if rows[i].Kind == "" {
			rows[i].Kind = stderrKindDerivable.Value
		}
	}
	return rows, prov, err
}

// WriteEstimates writes per-method estimates to path (estimates.parquet).
// A row's empty Status is derived (EstimateStatus); a status unknown, or
// not agreeing with Converged, is an error. The certificate column is
// written only when some row has a certificate.
func WriteEstimates(path string, rows []EstimateRow, prov Provenance) error {
	rows, err := withStatus(rows)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	t := estimatesTable
	if slices.ContainsFunc(rows, func(r EstimateRow) bool { return r.Certificate != "" }) {
		t = estimatesWithCertificate
	}
	return writeTable(path, t, rows, prov, defaultWrite)
}

// ReadEstimates reads a file written by WriteEstimates (with or without the
// certificate column), or one written before the status column: its rows'
// Status is derived from converged and params (EstimateStatus).
func ReadEstimates(path string) ([]EstimateRow, Provenance, error) {
	rows, prov, err := readTable(path, estimatesFor)
	if err != nil {
		return nil, Provenance{}, err
	}
	if rows, err = withStatus(rows); err != nil {
		return nil, Provenance{}, fmt.Errorf("read %s: %w", path, err)
	}
	return rows, prov, nil
}

// WriteSamples writes samples to path (samples.parquet).
func WriteSamples(path string, rows []SampleRow, prov Provenance) error {
	return writeTable(path, samplesTable, rows, prov, defaultWrite)
}

// ReadSamples reads a file written by WriteSamples.
func ReadSamples(path string) ([]SampleRow, Provenance, error) {
	return readTable(path, fixed(samplesTable))
}

// WriteScores writes scores to path (scores.parquet).
func WriteScores(path string, rows []ScoreRow, prov Provenance) error {
	return writeTable(path, scoresTable, rows, prov, defaultWrite)
}

// ReadScores reads a file written by WriteScores.
func ReadScores(path string) ([]ScoreRow, Provenance, error) {
	return readTable(path, fixed(scoresTable))
}

// WriteCurves writes learning curves to path (curves.parquet).
func WriteCurves(path string, rows []CurveRow, prov Provenance) error {
	return writeTable(path, curvesTable, rows, prov, defaultWrite)
}

// ReadCurves reads a file written by WriteCurves.
func ReadCurves(path string) ([]CurveRow, Provenance, error) {
	return readTable(path, fixed(curvesTable))
}

// WriteSummary writes a summary to path (summary.parquet). groupCols names
// the string columns placed before method, metric, mean, std and n; every
// row's Group holds one value per group column.
func WriteSummary(path string, groupCols []string, rows []SummaryRow, prov Provenance) error {
	if err := checkGroupCols(groupCols); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	for i := range rows {
		if len(rows[i].Group) != len(groupCols) {
			return fmt.Errorf("write %s: row %d has %d group values for %d group columns",
				path, i, len(rows[i].Group), len(groupCols))
		}
	}
	return writeTable(path, summaryTable(groupCols), rows, prov, defaultWrite)
}

// ReadSummary reads a file written by WriteSummary. The group columns are
// the columns before "method".
func ReadSummary(path string) (groupCols []string, rows []SummaryRow, prov Provenance, err error) {
	var names []string
	rows, prov, err = readTable(path, func(sc *arrow.Schema) (table[SummaryRow], error) {
		t, err := summaryTableFor(sc)
		if err != nil {
			return t, err
		}
		names = make([]string, 0, len(t.cols)-len(summaryFixed))
		for _, c := range t.cols[:len(t.cols)-len(summaryFixed)] {
			names = append(names, c.name)
		}
		return t, nil
	})
	if err != nil {
		return nil, nil, Provenance{}, err
	}
	return names, rows, prov, nil
}

// NetworkFile is the file of a trained family network (train-renn --amortize).
const NetworkFile = "network.parquet"

// NetworkRow is one parameter tensor of a network: a row of
// network.parquet. Values is row-major, Rows x Cols.
type NetworkRow struct {
	Name       string
	Rows, Cols int32
	Values     []float64
}

var networkTable = table[NetworkRow]{cols: []column[NetworkRow]{
	stringColumn("name", func(r *NetworkRow) *string { return &r.Name }),
	int32Column("rows", func(r *NetworkRow) *int32 { return &r.Rows }),
	int32Column("cols", func(r *NetworkRow) *int32 { return &r.Cols }),
	float64ListColumn("values", func(r *NetworkRow) *[]float64 { return &r.Values }),
}}

// WriteNetwork writes network.parquet.
func WriteNetwork(path string, rows []NetworkRow, prov Provenance) error {
	return writeTable(path, networkTable, rows, prov, defaultWrite)
}

// ReadNetwork reads network.parquet.
func ReadNetwork(path string) ([]NetworkRow, Provenance, error) {
	return readTable(path, fixed(networkTable))
}
