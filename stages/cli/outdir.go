package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
		for _, s := range stringValues(f.Target) {
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

// stringValues returns the values of a string or []string flag.
func stringValues(v reflect.Value) []string {
	switch {
	case v.Kind() == reflect.String:
		return []string{v.String()}
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		vals := make([]string, v.Len())
		for i := range vals {
			vals[i] = v.Index(i).String()
		}
		return vals
	}
	return nil
}

// checkFolders refuses a flag tagged folder:"PRODUCER: FILE FILE..." whose
// value is not a folder holding those files, saying what the flag wants
// and what it was given instead: a file, another stage's folder, nothing.
func checkFolders(flags []*kong.Flag) error {
	for _, f := range flags {
		spec := f.Tag.Get("folder")
		if spec == "" || !f.Target.IsValid() {
			continue
		}
		producer, files, _ := strings.Cut(spec, ":")
		for _, path := range stringValues(f.Target) {
			if path == "" {
				continue
			}
			if err := checkFolder(path, strings.Fields(files)); err != nil {
				return fmt.Errorf("--%s wants a folder written by %s (%s); %w", f.Name, strings.TrimSpace(producer), strings.Join(strings.Fields(files), " and "), err)
			}
		}
	}
	return nil
}

// checkFolder says how path is not a folder holding files.
func checkFolder(path string, files []string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist", path)
	case err != nil:
		return err
	case !st.IsDir() && slices.Contains(files, filepath.Base(path)):
		return fmt.Errorf("%s is a file: give its folder, %s", path, filepath.Dir(path))
	case !st.IsDir():
		return fmt.Errorf("%s is a file", path)
	}
	var lacks []string
	for _, name := range files {
		if _, err := os.Stat(filepath.Join(path, name)); err != nil {
			lacks = append(lacks, name)
		}
	}
	if len(lacks) == 0 {
		return nil
	}
	if len(lacks) < len(files) {
		return fmt.Errorf("%s lacks %s", path, strings.Join(lacks, " and "))
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	const show = 4
	switch {
	case len(names) == 0:
		return fmt.Errorf("%s is empty", path)
	case len(names) > show:
		names = append(names[:show], fmt.Sprintf("and %d more", len(names)-show))
	}
	return fmt.Errorf("%s holds %s instead", path, strings.Join(names, ", "))
}
