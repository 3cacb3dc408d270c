// Command fakestage stands in for a stage binary in the pipeline tests.
//
// It takes any --name=value flags. Special ones: --out=DIR (required),
// --in=DIR and --more=DIR (inputs, repeatable), --log=DIR (a file per run is
// created there holding the --out value, before anything else, so a test
// can see which stages ran and when one has started), --sleep=DURATION,
// --wait-while=FILE (sleep for as long as FILE exists), --fail (write a
// partial output, 25 lines to stderr, exit 3), --kill (write a partial
// output and a line to stderr, then kill itself with SIGKILL), --also=DIR
// (write DIR/extra.txt too, as --uai-out does), --alloc=MIB (touch MIB MiB
// of memory before writing its output, for tests of the recorded peak
// memory). Its output
// DIR/result.txt is derived deterministically from its arguments and the
// result.txt of its inputs, so a change upstream changes it.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// args are the parsed command line.
type args struct {
	out, logDir, waitWhile, also string
	inputs, params               []string
	fail, kill                   bool
	sleep                        time.Duration
	alloc                        []byte // touched memory, kept until the end
}

func main() {
	a := parseArgs(os.Args[1:])
	if a.logDir != "" {
		f, err := os.CreateTemp(a.logDir, "run-*")
		check(err)
		_, err = f.WriteString(a.out)
		check(err)
		check(f.Close())
	}
	time.Sleep(a.sleep)
	for a.waitWhile != "" {
		if _, err := os.Stat(a.waitWhile); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if a.kill {
		check(os.WriteFile(filepath.Join(a.out, "result.txt"), []byte("partial"), 0o644))
		fmt.Fprintln(os.Stderr, "fakestage: killing myself")
		self, err := os.FindProcess(os.Getpid())
		check(err)
		check(self.Kill())
		time.Sleep(time.Minute)
	}
	if a.fail {
		check(os.WriteFile(filepath.Join(a.out, "result.txt"), []byte("partial"), 0o644))
		for i := 1; i <= 25; i++ {
			fmt.Fprintf(os.Stderr, "fake error line %d\n", i)
		}
		os.Exit(3)
	}
	writeResult(a)
	fmt.Println("fakestage wrote", filepath.Join(a.out, "result.txt"), "after touching", len(a.alloc)>>20, "MiB")
}

// parseArgs parses the command line, exiting with status 2 on a bad one.
func parseArgs(argv []string) args {
	var a args
	for i, arg := range argv {
		if i == 0 && !strings.HasPrefix(arg, "-") {
			a.params = append(a.params, "subcommand "+arg)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
		if !strings.HasPrefix(arg, "--") || name == "" {
			usage(fmt.Sprintf("bad argument %q", arg))
		}
		if !hasValue {
			value = "true"
		}
		switch name {
		case "out":
			a.out = value
		case "log":
			a.logDir = value
		case "wait-while":
			a.waitWhile = value
			a.params = append(a.params, name+"="+value)
		case "in", "more":
			a.inputs = append(a.inputs, value)
			a.params = append(a.params, name+" "+value)
		case "fail":
			a.fail = value == "true"
		case "kill":
			a.kill = value == "true"
		case "also":
			a.also = value
		case "alloc":
			a.alloc = touch(value)
			a.params = append(a.params, name+"="+value)
		case "sleep":
			d, err := time.ParseDuration(value)
			if err != nil {
				usage(err.Error())
			}
			a.sleep = d
		default:
			a.params = append(a.params, name+"="+value)
		}
	}
	if a.out == "" {
		usage("--out is required")
	}
	return a
}

// touch allocates and writes mib MiB (a decimal number).
func touch(mib string) []byte {
	n, err := strconv.Atoi(mib)
	if err != nil || n < 0 {
		usage(fmt.Sprintf("bad --alloc %q", mib))
	}
	b := make([]byte, n<<20)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// writeResult writes out/result.txt (and also/extra.txt with --also) from
// the parameters and the inputs' results.
func writeResult(a args) {
	var b strings.Builder
	for _, p := range a.params {
		b.WriteString(p + "\n")
	}
	for _, in := range a.inputs {
		data, err := os.ReadFile(filepath.Join(in, "result.txt"))
		check(err)
		fmt.Fprintf(&b, "from %s: {\n%s}\n", in, data)
	}
	check(os.WriteFile(filepath.Join(a.out, "result.txt"), []byte(b.String()), 0o644))
	if a.also != "" {
		check(os.MkdirAll(a.also, 0o755))
		check(os.WriteFile(filepath.Join(a.also, "extra.txt"), []byte(b.String()), 0o644))
	}
}

// usage reports a bad command line and exits with status 2.
func usage(msg string) {
	fmt.Fprintln(os.Stderr, "fakestage:", msg)
	os.Exit(2)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakestage:", err)
		os.Exit(1)
	}
}
