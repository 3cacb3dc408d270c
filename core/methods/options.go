package methods

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/infer"
)

// Options are one method's options: its typed options struct, changed one
// named option at a time. Names are the struct's json names ("tol",
// "max_iter", "lambda"); every value is honoured or rejected, never replaced
// by a default.
type Options struct {
	entry *Entry
	v     any // pointer to the method's options struct
}

// Value returns the options struct (not a pointer), e.g. for JSON.
func (o *Options) Value() any { return reflect.ValueOf(o.v).Elem().Interface() }

// MarshalJSON writes the options struct.
func (o *Options) MarshalJSON() ([]byte, error) { return json.Marshal(o.v) }

// Check reports whether the options are valid for the method.
func (o *Options) Check() error {
	return infer.Named(o.entry.Name, o.entry.check(o.v))
}

// Has reports whether the method has an option called name.
func (o *Options) Has(name string) bool {
	_, ok := o.field(name)
	return ok
}

// Set parses value into the option called name.
func (o *Options) Set(name, value string) error {
	f, ok := o.field(name)
	if !ok {
		return fmt.Errorf("%s has no option %q (it has %s)", o.entry.Name, name, strings.Join(o.Names(), ", "))
	}
	if err := parseInto(f, value); err != nil {
		return fmt.Errorf("%s option %s: %w", o.entry.Name, name, err)
	}
	return nil
}

// Option describes one settable option.
type Option struct {
	Name    string // json name
	Type    string // "float", "int", "bool", "string"
	Default string // the value now held, formatted as Set parses it
	Help    string
}

// Names returns the names of the settable options.
func (o *Options) Names() []string {
	var names []string
	for _, d := range o.Describe() {
		names = append(names, d.Name)
	}
	return names
}

// Describe lists the settable options with their current values.
func (o *Options) Describe() []Option {
	var out []Option
	v := reflect.ValueOf(o.v).Elem()
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		name, ok := jsonName(sf)
		if !ok || kindName(sf.Type.Kind()) == "" {
			continue
		}
		out = append(out, Option{Name: name, Type: kindName(sf.Type.Kind()), Default: Format(v.Field(i)), Help: sf.Tag.Get("help")})
	}
	return out
}

func (o *Options) field(name string) (reflect.Value, bool) {
	v := reflect.ValueOf(o.v).Elem()
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if n, ok := jsonName(sf); ok && n == name && kindName(sf.Type.Kind()) != "" {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// jsonName is a field's option name: its json name; fields without one, or
// tagged "-", are not options.
func jsonName(sf reflect.StructField) (string, bool) {
	tag := sf.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if !sf.IsExported() || name == "" || name == "-" {
		return "", false
	}
	return name, true
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Float64:
		return "float"
	case reflect.Int, reflect.Int64:
		return "int"
	case reflect.Bool:
		return "bool"
	case reflect.String:
		return "string"
	}
	return ""
}

// Format writes a scalar option value the way Set parses it (floats in the
// shortest form that round-trips).
func Format(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	}
	return v.String()
}

func parseInto(f reflect.Value, s string) error {
	switch f.Kind() {
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) {
			return fmt.Errorf("%q is not a number", s)
		}
		f.SetFloat(x)
	case reflect.Int, reflect.Int64:
		x, err := strconv.ParseInt(s, 10, f.Type().Bits())
		if err != nil {
			return fmt.Errorf("%q is not an integer of %d bits", s, f.Type().Bits())
		}
		f.SetInt(x)
	case reflect.Bool:
		x, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		f.SetBool(x)
	case reflect.String:
		f.SetString(s)
	}
	return nil
}

// Setting is one NAME=VALUE or METHOD.NAME=VALUE from a command line.
type Setting struct {
	Method string // empty: every selected method that has the option
	Name   string
	Value  string
}

// ParseSettings parses NAME=VALUE and METHOD.NAME=VALUE strings.
func ParseSettings(args []string) ([]Setting, error) {
	var out []Setting
	for _, a := range args {
		key, value, ok := strings.Cut(a, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("option %q: want NAME=VALUE or METHOD.NAME=VALUE", a)
		}
		s := Setting{Name: key, Value: value}
		if m, n, ok := strings.Cut(key, "."); ok {
			if _, err := Lookup(m); err != nil {
				return nil, fmt.Errorf("option %q: %w", a, err)
			}
			s.Method, s.Name = m, n
		}
		out = append(out, s)
	}
	return out, nil
}

// Apply applies the settings to opts, the options of the selected methods
// by name: an unqualified setting to every method that has the option. A
// setting no selected method takes is an error.
func Apply(settings []Setting, opts map[string]*Options) error {
	names := make([]string, 0, len(opts))
	for n := range opts {
		names = append(names, n)
	}
	slices.SortFunc(names, Compare)
	for _, s := range settings {
		used := false
		for _, n := range names {
			o := opts[n]
			if (s.Method != "" && s.Method != n) || (s.Method == "" && !o.Has(s.Name)) {
				continue
			}
			if err := o.Set(s.Name, s.Value); err != nil {
				return err
			}
			used = true
		}
		if !used {
			return fmt.Errorf("option %s: none of the selected methods (%s) has it", settingKey(s), strings.Join(names, ", "))
		}
	}
	return nil
}

func settingKey(s Setting) string {
	if s.Method == "" {
		return s.Name
	}
	return s.Method + "." + s.Name
}

// Resolve returns the options of the named methods (their defaults, or their
// learning defaults if learning is set) with the NAME=VALUE and
// METHOD.NAME=VALUE settings applied and checked.
func Resolve(names, settings []string, learning bool) (map[string]*Options, error) {
	sets, err := ParseSettings(settings)
	if err != nil {
		return nil, err
	}
	opts := make(map[string]*Options, len(names))
	for _, n := range names {
		e, err := Lookup(n)
		if err != nil {
			return nil, err
		}
		opts[n] = e.Options(learning)
	}
	if err := Apply(sets, opts); err != nil {
		return nil, err
	}
	for _, n := range names {
		if err := opts[n].Check(); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// With returns options holding v, which must be of the entry's options type
// (e.g. renn.Options for renn), as a command line that parses the options
// struct itself builds it.
func (e *Entry) With(v any) (*Options, error) {
	o := e.Options(false)
	dst := reflect.ValueOf(o.v).Elem()
	src := reflect.ValueOf(v)
	if src.Type() != dst.Type() {
		return nil, fmt.Errorf("%s takes options of type %s, not %s", e.Name, dst.Type(), src.Type())
	}
	dst.Set(src)
	return o, nil
}
