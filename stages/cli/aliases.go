package cli

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
)

// Aliases returns the flags given on the command line of kctx whose values
// land in the struct opts points to (a method's options struct embedded in
// the grammar, its fields flags), as NAME=VALUE settings in command-line
// order, NAME being the field's json name (max_iter for --max-iter): each
// such flag is an alias of --set NAME=VALUE, so a command applies the
// settings to the method's own defaults and checks them once, with --set.
func Aliases(kctx *kong.Context, opts any) []string {
	names := make(map[uintptr]string)
	optionFields(reflect.ValueOf(opts).Elem(), names)
	var out []string
	for _, p := range kctx.Path {
		if p.Flag == nil || !p.Flag.Target.CanAddr() {
			continue
		}
		if name, ok := names[p.Flag.Target.Addr().Pointer()]; ok {
			out = append(out, name+"="+fmt.Sprint(p.Flag.Target.Interface()))
		}
	}
	return out
}

// optionFields records the address of every option field of the struct v
// (those with a json name), descending into embedded structs.
func optionFields(v reflect.Value, names map[uintptr]string) {
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			optionFields(v.Field(i), names)
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.IsExported() && name != "" && name != "-" {
			names[v.Field(i).Addr().Pointer()] = name
		}
	}
}
