package score

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/renn-go/renn/core/methods"
	"github.com/renn-go/renn/formats"
)

// SECoverage is the score of the Monte Carlo methods' standard errors
// (stderrs.parquet beside their marginals): the fraction of variables whose
// every state's error |p_est - p_exact| is at most twice its reported
// standard error (a NaN standard error covers nothing). With honest
// standard errors it is about 0.95 on binary models (lower on models of
// more states, where every state must be covered). Only runs with standard
// errors have it.
const SECoverage = "se_coverage"

// LogZSECoverage is the score of a Monte Carlo ln Z's standard error (pt's,
// the "log_z" rows of stderrs.parquet): 1 when |ln Z_est - ln Z_exact| is at
// most twice it, else 0 (a NaN standard error or ln Z covers nothing), so
// its mean is the fraction of models covered. Only runs with such a row
// have it.
const LogZSECoverage = "logz_se_coverage"

// readStderrs adds the standard errors of dir's stderrs.parquet, if it has
// one (directories of methods without them, and of older runs, have none),
// to the runs of the methods keep accepts. It returns the path it read, or
// nil.
func (c *collection) readStderrs(dir string, shardOf map[string]*shard, keep func(string) bool) ([]string, error) {
	path := filepath.Join(dir, formats.StderrsFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	rows, prov, err := formats.ReadStderrs(path)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return []string{path}, nil
	}
	s, err := modelsOf(path, prov, shardOf)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		row := &rows[i]
		if !keep(row.Method) {
			continue
		}
		r, err := c.get(s, row.ModelID, row.Method, dir, path)
		if err != nil {
			return nil, err
		}
		m := r.model.Model
		switch row.Kind {
		case formats.StderrVar:
		case formats.StderrLogZ:
			if err := r.setLogZSE(row.Stderr, fmt.Sprintf("%s: model %d (%s) method %q ln Z", path, row.ModelID, r.model.Info.Name, row.Method)); err != nil {
				return nil, err
			}
			continue
		default:
			return nil, fmt.Errorf("%s: model %d method %q: row of kind %q, want %q or %q", path, row.ModelID, row.Method, row.Kind, formats.StderrVar, formats.StderrLogZ)
		}
		where := fmt.Sprintf("%s: model %d (%s) method %q variable %d", path, row.ModelID, r.model.Info.Name, row.Method, row.Index)
		if row.Index < 0 || int(row.Index) >= len(m.Cards) {
			return nil, fmt.Errorf("%s: variable out of range [0,%d)", where, len(m.Cards))
		}
		if len(row.Stderr) != m.Cards[row.Index] {
			return nil, fmt.Errorf("%s: %d standard errors, want %d", where, len(row.Stderr), m.Cards[row.Index])
		}
		for x, v := range row.Stderr {
			if v < 0 || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: standard error %v at state %d", where, v, x)
			}
		}
		if r.se == nil {
			r.se = make([][]float64, len(m.Cards))
		}
		if r.se[row.Index] != nil {
			return nil, fmt.Errorf("%s: given twice", where)
		}
		r.se[row.Index] = row.Stderr
	}
	return []string{path}, nil
}

// setLogZSE sets r's ln Z standard error from a "log_z" row's values.
func (r *run) setLogZSE(v []float64, where string) error {
	switch {
	case len(v) != 1:
		return fmt.Errorf("%s: %d standard errors, want 1", where, len(v))
	case v[0] < 0 || math.IsInf(v[0], 0):
		return fmt.Errorf("%s: standard error %v", where, v[0])
	case r.logZSE != nil:
		return fmt.Errorf("%s: given twice", where)
	}
	r.logZSE = &v[0]
	return nil
}

// logZCoverage returns the LogZSECoverage of pred's ln Z standard error
// against the exact ln Z, and false if pred has none.
func logZCoverage(pred, truth *run) (float64, bool) {
	if pred.logZSE == nil {
		return 0, false
	}
	if math.Abs(pred.est.LogZ-truth.est.LogZ) <= 2**pred.logZSE {
		return 1, true
	}
	return 0, true
}

// coverage returns the SECoverage of pred's standard errors against the
// exact marginals, and false if pred has none. A variable without a row
// counts as not covered.
func coverage(pred, truth *run) (float64, bool) {
	if pred.se == nil {
		return 0, false
	}
	covered := 0
	for i, p := range pred.marg.Vars {
		se := pred.se[i]
		ok := se != nil
		for x := range p {
			if !ok {
				break
			}
			ok = math.Abs(p[x]-truth.marg.Vars[i][x]) <= 2*se[x]
		}
		if ok {
			covered++
		}
	}
	return float64(covered) / float64(len(pred.marg.Vars)), true
}

// noLogZ reports whether method makes no claim on ln Z (its registry entry
// is methods.LogZNone): its NaN ln Z is what it promises, not a malformed
// answer, and it has no ln Z error.
func noLogZ(method string) bool {
	e, err := methods.Lookup(method)
	return err == nil && e.LogZ == methods.LogZNone
}
