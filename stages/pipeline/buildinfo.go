package pipeline

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"strings"
	"sync"
)

// HandBuild is the go command that builds the binaries as Build does, for
// a person building them by hand in the module root.
const HandBuild = "go build -trimpath -buildvcs=false -o bin/ ./cmd/..."

// buildFlaws caches notBuiltByPipeline by path, size and modification time:
// Status asks once per instance, and a plan has hundreds of instances on a
// handful of binaries.
var buildFlaws sync.Map // buildKey -> string

type buildKey struct {
	path  string
	size  int64
	mtime int64
}

// notBuiltByPipeline says how the Go binary at path was built differently
// from Build ("no -trimpath", "no -buildvcs=false"), or "" if it was built the same
// way or cannot be read as a Go binary. Such a binary differs from the one
// the pipeline builds from the same source, so an instance stamped with it
// reads as "binary changed" for no change of the code.
func notBuiltByPipeline(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	key := buildKey{path, fi.Size(), fi.ModTime().UnixNano()}
	if v, ok := buildFlaws.Load(key); ok {
		return v.(string)
	}
	var flaws []string
	if info, err := buildinfo.ReadFile(path); err == nil {
		trimmed, vcs := false, false
		for _, s := range info.Settings {
			switch {
			case s.Key == "-trimpath":
				trimmed = s.Value == "true"
			case strings.HasPrefix(s.Key, "vcs"):
				vcs = true
			}
		}
		if !trimmed {
			flaws = append(flaws, "no -trimpath")
		}
		if vcs {
			flaws = append(flaws, "no -buildvcs=false")
		}
	}
	flaw := strings.Join(flaws, ", ")
	buildFlaws.Store(key, flaw)
	return flaw
}

// binaryChange is the staleness reason for an instance whose binary's sum
// differs from its stamp's. It says so when the binary was not built the
// way the pipeline builds, the usual cause after a build by hand.
func binaryChange(p *Plan, binary string) string {
	flaw := notBuiltByPipeline(binary)
	if flaw == "" {
		return "binary changed"
	}
	return fmt.Sprintf("binary changed: %s was not built by the pipeline (%s): rebuild with %s, or let pipeline run build it",
		p.Config.Rel(binary), flaw, HandBuild)
}
