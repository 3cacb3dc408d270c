// Package clitest checks a command's real main from its tests: the test
// binary restarts itself as the command, so exit codes and stderr are the
// ones a user sees.
package clitest

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// envArgs carries the command line of the child process, JSON-encoded; its
// presence makes the test binary act as the command.
const envArgs = "CLITEST_MAIN_ARGS"

// Main is the body of a command package's TestMain: in a child started by
// Run it runs main as the command name with Run's arguments; otherwise it
// runs the tests.
func Main(m *testing.M, name string, main func()) {
	if enc, ok := os.LookupEnv(envArgs); ok {
		var args []string
		if err := json.Unmarshal([]byte(enc), &args); err != nil {
			panic("clitest: bad " + envArgs + ": " + err.Error())
		}
		os.Args = append([]string{name}, args...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Command returns the command (the test binary, through Main) with args,
// not started: for a test that signals it while it runs.
func Command(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	enc, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envArgs+"="+string(enc))
	return cmd
}

// Run runs the command (the test binary, through Main) with args and returns
// its exit code and standard error.
func Run(t testing.TB, args ...string) (code int, stderr string) {
	t.Helper()
	cmd := Command(t, args...)
	var buf strings.Builder
	cmd.Stderr = &buf
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, buf.String()
}
