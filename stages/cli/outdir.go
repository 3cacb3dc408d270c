package cli

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
)

// isOutput reports whether a flag names something the command writes: --out
// and the --*-out flags (--uai-out). Every other string flag may name an input.
func isOutput(name string) bool { return name == "out" || strings.HasSuffix(name, "-out") }

// pathMapper replaces kong's "path" mapper: an empty value is a usage error
// (kong would turn it into the current directory, and a stage would write
// there), and the path is otherwise expanded as kong does.
func pathMapper(ctx *kong.DecodeContext, target reflect.Value) error {
	if target.Kind() != reflect.String {
		return fmt.Errorf("\"path\" type must be applied to a string not %s", target.Type())
	}
	var path string
	if err := ctx.Scan.PopValueInto("file", &path); err != nil {
		return err
	}
	if path == "" {
		return errors.New("empty path: give a file or directory")
	}
	if path != "-" {
		path = kong.ExpandPath(path)
	}
	target.SetString(path)
	return nil
}

// checkOutputs refuses an output flag that is, or resolves to, the file or
// directory of another flag of the command: a stage writing there would
// overwrite its own inputs (learn-mrf --out DIR --models DIR would replace the
// true models by the learned ones). Outputs that do not exist yet cannot be
// an input and pass.
func checkOutputs(flags []*kong.Flag) error {
	type value struct{ flag, path string }
	var outs, ins []value
	for _, f := range flags {
		// An enum names a choice, not a file (--graph grid beside a
		// directory grid is no input).
		if !f.Target.IsValid() || f.Name == "help" || f.Enum != "" {
			continue
		}
		var vals []string
		switch v := f.Target; {
		case v.Kind() == reflect.String:
			vals = []string{v.String()}
		case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
			for i := 0; i < v.Len(); i++ {
				vals = append(vals, v.Index(i).String())
			}
		}
		for _, s := range vals {
			if s == "" {
				continue
			}
			if isOutput(f.Name) {
				outs = append(outs, value{f.Name, s})
			} else {
				ins = append(ins, value{f.Name, s})
			}
		}
	}
	for _, o := range outs {
		ost, err := os.Stat(o.path)
		if err != nil {
			continue
		}
		for _, in := range ins {
			ist, err := os.Stat(in.path)
			if err != nil || !os.SameFile(ost, ist) {
				continue
			}
			return fmt.Errorf("--%s %s is the --%s input %s: writing there would overwrite the inputs; choose another output directory",
				o.flag, o.path, in.flag, in.path)
		}
	}
	return nil
}
