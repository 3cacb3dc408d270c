package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// param renders a flag value from the config.
func param(name string, v any) (Param, error) {
	p := Param{Name: name}
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			ep, err := param(name, e)
			if err != nil {
				return p, err
			}
			if _, isList := e.([]any); isList {
				return p, errors.New("nested lists cannot be written as a flag")
			}
			parts[i] = ep.Value
		}
		p.Value = strings.Join(parts, ",")
		return p, nil
	case string:
		p.Value = x
	case int64:
		p.Value = strconv.FormatInt(x, 10)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return p, fmt.Errorf("%v cannot be written as a flag", x)
		}
		p.Value = strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		p.Value = strconv.FormatBool(x)
		p.Bool = true
	default:
		return p, fmt.Errorf("want a string, number, boolean or list, found %s", tomlType(v))
	}
	return p, nil
}

func tomlType(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	default:
		return "a date or time"
	}
}
