package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Resources is what one instance of a stage asks a batch scheduler for. The
// local executor ignores them. They are not part of the fingerprint: where
// and with how much a stage ran does not change what it wrote.
type Resources struct {
	CPUs   int    // cores (sbatch --cpus-per-task)
	Memory string // memory in Slurm's --mem syntax: "2G", "500M", "1T"
	Time   string // time limit in Slurm's --time syntax: "90" (minutes), "1:30:00", "2-00:00:00"
}

// DefaultResources returns what a stage gets when neither [resources] nor
// its own [stage.NAME.resources] says otherwise: the stages of the default
// experiment need one core, well under 2 GB and a few minutes.
func DefaultResources() Resources { return Resources{CPUs: 1, Memory: "2G", Time: "1:00:00"} }

// Slurm is the [slurm] table: settings of the Slurm executor that
// belong with the experiment rather than on the command line. Command-line
// flags override Partition and Account and add to Options.
type Slurm struct {
	Partition string   // sbatch --partition
	Account   string   // sbatch --account
	Options   []string // further sbatch options, one argument each, e.g. "--qos=short"
}

var (
	resourceKeys = []string{"cpus", "memory", "time"}
	slurmKeys    = []string{"partition", "account", "options"}
	memoryRE     = regexp.MustCompile(`^[0-9]+[KMGTkmgt]?$`)
	// Slurm's time formats: minutes, minutes:seconds, hours:minutes:seconds,
	// days-hours, days-hours:minutes, days-hours:minutes:seconds.
	timeRE = regexp.MustCompile(`^([0-9]+-[0-9]+(:[0-9]+){0,2}|[0-9]+(:[0-9]+){0,2})$`)
)

// parseResources overlays the table at key (a resources table of the file,
// decoded as raw) on base.
func (c *Config) parseResources(base Resources, raw map[string]any, md toml.MetaData, key ...string) (Resources, []error) {
	r := base
	var errs []error
	for _, name := range keysUnder(md, key...) {
		k := append(append([]string(nil), key...), name)
		v := raw[name]
		switch name {
		case "cpus":
			n, ok := v.(int64)
			if !ok || n < 1 || n > 1<<20 {
				errs = append(errs, c.Errorf(k, "want a positive whole number of cores, found %s", describe(v)))
				continue
			}
			r.CPUs = int(n)
		case "memory":
			switch x := v.(type) {
			case int64:
				if x < 1 {
					errs = append(errs, c.Errorf(k, "want a positive amount, found %d", x))
					continue
				}
				r.Memory = strconv.FormatInt(x, 10) + "M"
			case string:
				if !memoryRE.MatchString(x) || strings.Trim(x, "0KMGTkmgt") == "" {
					errs = append(errs, c.Errorf(k, `want an amount like "500M", "4G" or "1T", found %q`, x))
					continue
				}
				r.Memory = strings.ToUpper(x)
			default:
				errs = append(errs, c.Errorf(k, `want an amount like "4G" (or whole megabytes), found %s`, tomlType(v)))
			}
		case "time":
			switch x := v.(type) {
			case int64:
				if x < 1 {
					errs = append(errs, c.Errorf(k, "want a positive number of minutes, found %d", x))
					continue
				}
				r.Time = strconv.FormatInt(x, 10)
			case string:
				if !timeRE.MatchString(x) && !strings.EqualFold(x, "infinite") && !strings.EqualFold(x, "unlimited") {
					errs = append(errs, c.Errorf(k, `want a time limit like "30" (minutes), "2:00:00" or "1-12:00:00", found %q`, x))
					continue
				}
				r.Time = x
			default:
				errs = append(errs, c.Errorf(k, `want a time limit like "2:00:00" (or whole minutes), found %s`, tomlType(v)))
			}
		default:
			errs = append(errs, c.Errorf(k, "unknown key (want one of %s)", strings.Join(resourceKeys, ", ")))
		}
	}
	return r, errs
}

// parseSlurm reads the [slurm] table.
func (c *Config) parseSlurm(raw map[string]any, md toml.MetaData) (Slurm, []error) {
	var s Slurm
	var errs []error
	for _, name := range keysUnder(md, "slurm") {
		k := []string{"slurm", name}
		v := raw[name]
		switch name {
		case "partition", "account":
			x, ok := v.(string)
			if !ok || x == "" || strings.ContainsAny(x, " \t\n") {
				errs = append(errs, c.Errorf(k, "want a %s name, found %s", name, describe(v)))
				continue
			}
			if name == "partition" {
				s.Partition = x
			} else {
				s.Account = x
			}
		case "options":
			list, ok := v.([]any)
			if !ok {
				errs = append(errs, c.Errorf(k, `want a list of sbatch options like ["--qos=short"], found %s`, tomlType(v)))
				continue
			}
			for _, e := range list {
				o, ok := e.(string)
				if !ok || !strings.HasPrefix(o, "-") {
					errs = append(errs, c.Errorf(k, `want sbatch options starting with "-", one per string, found %s`, describe(e)))
					break
				}
				s.Options = append(s.Options, o)
			}
		default:
			errs = append(errs, c.Errorf(k, "unknown key (want one of %s)", strings.Join(slurmKeys, ", ")))
		}
	}
	return s, errs
}

// describe names a TOML value for an error message: strings and numbers
// by value, anything else by type.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return tomlType(v)
}

func (r Resources) String() string {
	return fmt.Sprintf("%d cpus, %s memory, time %s", r.CPUs, r.Memory, r.Time)
}
