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

func main() {
	var out, logDir, waitWhile string
	var inputs, params []string
	var fail, kill bool
	var also string
	var sleep time.Duration
	var alloc []byte
	for i, a := range os.Args[1:] {
		if i == 0 && !strings.HasPrefix(a, "-") {
			params = append(params, "subcommand "+a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || name == "" {
			fmt.Fprintf(os.Stderr, "fakestage: bad argument %q\n", a)
			os.Exit(2)
		}
		if !hasValue {
			value = "true"
		}
		switch name {
		case "out":
			out = value
		case "log":
			logDir = value
		case "wait-while":
			waitWhile = value
			params = append(params, name+"="+value)
		case "in", "more":
			inputs = append(inputs, value)
			params = append(params, name+" "+value)
		case "fail":
			fail = value == "true"
		case "kill":
			kill = value == "true"
		case "also":
			also = value
		case "alloc":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 {
				fmt.Fprintf(os.Stderr, "fakestage: bad --alloc %q\n", value)
				os.Exit(2)
			}
			alloc = make([]byte, n<<20)
			for i := range alloc {
				alloc[i] = byte(i)
			}
			params = append(params, name+"="+value)
		case "sleep":
			d, err := time.ParseDuration(value)
			if err != nil {
				fmt.Fprintln(os.Stderr, "fakestage:", err)
				os.Exit(2)
			}
			sleep = d
		default:
			params = append(params, name+"="+value)
		}
	}
	if out == "" {
		fmt.Fprintln(os.Stderr, "fakestage: --out is required")
		os.Exit(2)
	}
	if logDir != "" {
		f, err := os.CreateTemp(logDir, "run-*")
		check(err)
		_, err = f.WriteString(out)
		check(err)
		check(f.Close())
	}
	time.Sleep(sleep)
	for waitWhile != "" {
		if _, err := os.Stat(waitWhile); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if kill {
		check(os.WriteFile(filepath.Join(out, "result.txt"), []byte("partial"), 0o644))
		fmt.Fprintln(os.Stderr, "fakestage: killing myself")
		self, err := os.FindProcess(os.Getpid())
		check(err)
		check(self.Kill())
		time.Sleep(time.Minute)
	}
	if fail {
		check(os.WriteFile(filepath.Join(out, "result.txt"), []byte("partial"), 0o644))
		for i := 1; i <= 25; i++ {
			fmt.Fprintf(os.Stderr, "fake error line %d\n", i)
		}
		os.Exit(3)
	}
	var b strings.Builder
	for _, p := range params {
		b.WriteString(p + "\n")
	}
	for _, in := range inputs {
		data, err := os.ReadFile(filepath.Join(in, "result.txt"))
		check(err)
		fmt.Fprintf(&b, "from %s: {\n%s}\n", in, data)
	}
	check(os.WriteFile(filepath.Join(out, "result.txt"), []byte(b.String()), 0o644))
	if also != "" {
		check(os.MkdirAll(also, 0o755))
		check(os.WriteFile(filepath.Join(also, "extra.txt"), []byte(b.String()), 0o644))
	}
	fmt.Println("fakestage wrote", filepath.Join(out, "result.txt"), "after touching", len(alloc)>>20, "MiB")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakestage:", err)
		os.Exit(1)
	}
}
