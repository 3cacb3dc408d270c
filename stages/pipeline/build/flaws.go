package build

import (
	"debug/buildinfo"
	"strings"
)

// HandBuild is the go command that builds the binaries as Build does, for
// a person building them by hand in the module root.
const HandBuild = "go build -trimpath -buildvcs=false -o bin/ ./cmd/..."

// Flaws says how the Go binary at path was built differently from Build
// ("no -trimpath", "no -buildvcs=false"), or "" if it was built the same
// way or cannot be read as a Go binary. Such a binary differs from the one
// Build makes of the same source, so an instance stamped with it reads as
// "binary changed" for no change of the code.
func Flaws(path string) string {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return ""
	}
	trimmed, vcs := false, false
	for _, s := range info.Settings {
		switch {
		case s.Key == "-trimpath":
			trimmed = s.Value == "true"
		case strings.HasPrefix(s.Key, "vcs"):
			vcs = true
		}
	}
	var flaws []string
	if !trimmed {
		flaws = append(flaws, "no -trimpath")
	}
	if vcs {
		flaws = append(flaws, "no -buildvcs=false")
	}
	return strings.Join(flaws, ", ")
}
