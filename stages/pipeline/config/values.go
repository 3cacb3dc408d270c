package config

import (
	"errors"
	"fmt"
	"math"
	"os"
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
		s, err := expandEnv(x)
		if err != nil {
			return p, err
		}
		p.Value = s
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

// expandEnv replaces ${NAME} in a flag value by the environment variable
// NAME, and ${NAME:-DEFAULT} by it or, when it is unset or empty, by
// DEFAULT, so that a config can take a parameter from the command line
// (RENN_UAI_DIR=models pipeline run). Any other $ is kept. NAME unset
// without a default is an error, as is an unclosed ${.
func expandEnv(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("%q: ${ without a closing }", s)
		}
		b.WriteString(s[:i])
		name, def, hasDef := strings.Cut(s[i+2:i+j], ":-")
		if name == "" {
			return "", fmt.Errorf("%q: ${} names no environment variable", s)
		}
		v := os.Getenv(name)
		switch {
		case v != "":
		case hasDef:
			v = def
		default:
			return "", fmt.Errorf("environment variable %s is not set (write ${%s:-DEFAULT} for a default)", name, name)
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
}
