package formats

import (
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
)

// Derivable is a column added to a table after files of it were written.
// The table's reader derives it for a file written before it, so a newer
// file holds the same results as an older one when the columns both hold
// agree and the added column holds what the reader derives.
type Derivable struct {
	Column string
	// Value, if not "", is what every row of a file without the column
	// reads as: a newer file agrees with an older one only where every row
	// holds it. "" when the column is derived row by row from columns both
	// files hold (From), so that comparing those compares it.
	Value string
	From  []string
}

// Schema declares a table: the file it is written to, every column a file
// of it may hold (optional columns included) in file order, and the
// columns a reader derives for files written before them.
type Schema struct {
	File      string
	Columns   []string
	Derivable []Derivable
}

// Holds reports whether every one of columns is a column of s.
func (s Schema) Holds(columns []string) bool {
	for _, c := range columns {
		if !slices.Contains(s.Columns, c) {
			return false
		}
	}
	return true
}

// Schemas returns the declarations of the tables of fixed columns
// (summary.parquet's group columns vary from file to file).
func Schemas() []Schema {
	return []Schema{
		schemaOf(ModelsFile, modelsTable),
		schemaOf(ModelInfoFile, modelInfoWithHidden),
		schemaOf(RegionsFile, regionsTable),
		schemaOf(MarginalsFile, marginalsTable),
		schemaOf(EstimatesFile, estimatesWithCertificate),
		schemaOf(SamplesFile, samplesTable),
		schemaOf(ScoresFile, scoresTable),
		schemaOf(CurvesFile, curvesTable),
		schemaOf(StderrsFile, stderrsTable),
		schemaOf(NetworkFile, networkTable),
	}
}

// The derivable columns of the tables that have any.
var (
	// status says why a method stopped; files without it read with the
	// status derived from converged and params (EstimateStatus).
	statusDerivable = Derivable{Column: "status", From: []string{"converged", "params"}}
	// kind tells a variable's standard errors from ln Z's; files without
	// it hold variables' only.
	stderrKindDerivable = Derivable{Column: "kind", Value: StderrVar}
)

func schemaOf[R any](file string, t table[R]) Schema {
	s := Schema{File: file, Derivable: slices.Clone(t.derivable)}
	for _, c := range t.cols {
		s.Columns = append(s.Columns, c.name)
	}
	return s
}

// lacking returns t without the derivable columns that a file of schema sc
// lacks: the columns its reader derives instead.
func (t table[R]) lacking(sc *arrow.Schema) table[R] {
	out := t
	out.cols = slices.DeleteFunc(slices.Clone(t.cols), func(c column[R]) bool {
		return !sc.HasField(c.name) && slices.ContainsFunc(t.derivable, func(d Derivable) bool { return d.Column == c.name })
	})
	return out
}
