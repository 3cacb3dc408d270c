package score

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/renn-go/renn/core/infer"
	"github.com/renn-go/renn/formats"
	"github.com/renn-go/renn/stages/stageio"
)

// wellFormed reports the first way r's answer is not a distribution: a ln Z
// that is NaN or infinite (NaN is allowed for a method that makes no claim
// on ln Z, methods.LogZNone), or a marginal with a NaN, infinite or negative
// entry or a sum off 1 by more than infer.NormTol (the tolerance of the
// shared check every method's answer went through).
func (r *run) wellFormed() error {
	where := fmt.Sprintf("model %d (%s, models %s) method %q", r.model.ID, r.model.Info.Name, r.shard.dir, r.method)
	if l := r.est.LogZ; (math.IsNaN(l) && !noLogZ(r.method)) || math.IsInf(l, 0) {
		return fmt.Errorf("%s: %s: ln Z is %v", r.estFile, where, l)
	}
	check := func(kind string, k int, p []float64) error {
		s := 0.0
		for x, v := range p {
			if !(v >= 0) || math.IsInf(v, 1) {
				return fmt.Errorf("%s: %s: %s %d: probability %v at state %d", r.margFile, where, kind, k, v, x)
			}
			s += v
		}
		if math.Abs(s-1) > infer.NormTol {
			return fmt.Errorf("%s: %s: %s %d: probabilities sum to %.9g, not 1", r.margFile, where, kind, k, s)
		}
		return nil
	}
	for i, p := range r.marg.Vars {
		if err := check("variable", i, p); err != nil {
			return err
		}
	}
	for a, p := range r.marg.Factors {
		if err := check("factor", a, p); err != nil {
			return err
		}
	}
	return nil
}

// checkTruth refuses an exact answer that is not a distribution or failed
// the shared check: every score against it would be wrong.
func checkTruth(t *run) error {
	if t.est.Status == formats.StatusCheckFailed {
		why := stageio.CheckFailure(t.est.Params)
		return fmt.Errorf("truth: %s: model %d (%s, models %s): the exact answer failed its check: %s", t.estFile, t.model.ID, t.model.Info.Name, t.shard.dir, why)
	}
	if err := t.wellFormed(); err != nil {
		return fmt.Errorf("truth: %w", err)
	}
	return nil
}

// checkPred refuses a prediction that is not a distribution unless its
// estimate records that it failed the shared check (infer.Verify): such an
// answer is what the method returned, marked failed and not converged, and
// is scored as it is (its NaN scores show in the table and check_failed
// counts it). A malformed answer without that mark did not come from the
// stages, or was altered.
func checkPred(r *run) error {
	if r.est.Status == formats.StatusCheckFailed {
		return nil
	}
	if err := r.wellFormed(); err != nil {
		return fmt.Errorf("%w (and its estimate records no failed check)", err)
	}
	return nil
}

// failure is a run a stage recorded as failed in its provenance ("failed"
// of run-baselines): it wrote no marginals for it.
type failure struct {
	file string
	err  string
}

// failures reads the "failed" list of an estimates file's provenance params.
func failures(path string, prov formats.Provenance) map[runKeyNoSHA]failure {
	var p struct {
		Failed []struct {
			ModelID int32  `json:"model_id"`
			Method  string `json:"method"`
			Error   string `json:"error"`
		} `json:"failed"`
	}
	if json.Unmarshal([]byte(prov.Params), &p) != nil || len(p.Failed) == 0 {
		return nil
	}
	out := map[runKeyNoSHA]failure{}
	for _, f := range p.Failed {
		out[runKeyNoSHA{f.ModelID, f.Method}] = failure{path, f.Error}
	}
	return out
}

type runKeyNoSHA struct {
	id     int32
	method string
}

// missing lists every (model, method) pair of the --models directories that
// has no prediction, for every method some prediction directory holds (or
// recorded as failed), with the reason a stage recorded for it if any.
func missing(shards []*shard, pred *collection) []string {
	methods := map[string]bool{}
	for k := range pred.runs {
		methods[k.method] = true
	}
	for k := range pred.failed {
		methods[k.method] = true
	}
	names := make([]string, 0, len(methods))
	for m := range methods {
		names = append(names, m)
	}
	sort.Slice(names, func(a, b int) bool { return methodLess(names[a], names[b]) })
	var out []string
	for _, s := range shards {
		ids := make([]int32, 0, len(s.models))
		for id := range s.models {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
		for _, id := range ids {
			for _, m := range names {
				k := runKey{s.sha, id, m}
				if pred.runs[k] != nil {
					continue
				}
				line := fmt.Sprintf("model %d (%s, models %s) method %q", id, s.models[id].Info.Name, s.dir, m)
				if f, ok := pred.failed[k]; ok {
					line += fmt.Sprintf(": failed (recorded in %s): %s", f.file, f.err)
				} else {
					line += ": no prediction"
				}
				out = append(out, line)
			}
		}
	}
	return out
}

// missingError names the missing pairs, the first few in full.
func missingError(miss []string, pred []string) error {
	const show = 10
	list := miss
	more := ""
	if len(list) > show {
		list, more = list[:show], fmt.Sprintf("\n  ... and %d more", len(miss)-show)
	}
	return fmt.Errorf("%d (model, method) runs of the --models directories have no predictions in %s:\n  %s%s\n(pass --partial to score the rest anyway)",
		len(miss), strings.Join(pred, ", "), strings.Join(list, "\n  "), more)
}
