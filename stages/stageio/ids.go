package stageio

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/formats"
)

// ParseIDs reads model ids given as decimal numbers or inclusive ranges
// "LO-HI" (so a pipeline can shard a stage over "0-4", "5-9", ... without
// commas in directory names). The result keeps the given order; an id given
// twice is an error.
func ParseIDs(specs []string) ([]int32, error) {
	var ids []int32
	seen := map[int32]bool{}
	for _, s := range specs {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(s), "-")
		a, err := parseID(lo)
		if err != nil {
			return nil, fmt.Errorf("model ids %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = parseID(hi); err != nil {
				return nil, fmt.Errorf("model ids %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("model ids %q: range ends before it starts", s)
			}
		}
		for id := a; ; id++ {
			if seen[id] {
				return nil, fmt.Errorf("model id %d selected twice", id)
			}
			seen[id] = true
			ids = append(ids, id)
			if id == b {
				break
			}
		}
	}
	return ids, nil
}

func parseID(s string) (int32, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil || v < 0 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%q is not a model id (a non-negative integer)", s)
	}
	return int32(v), nil
}

// SelectModels returns the models with the given ids, in the order of ids;
// all of them when ids is empty. dir names the models directory in errors.
func SelectModels(models []Model, ids []int32, dir string) ([]Model, error) {
	if len(ids) == 0 {
		return models, nil
	}
	out := make([]Model, 0, len(ids))
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return nil, fmt.Errorf("model id %d selected twice", id)
		}
		k := slices.IndexFunc(models, func(e Model) bool { return e.ID == id })
		if k < 0 {
			return nil, fmt.Errorf("%s: no model with model_id %d", filepath.Join(dir, formats.ModelInfoFile), id)
		}
		out = append(out, models[k])
	}
	return out, nil
}
