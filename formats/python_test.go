package formats

import (
	"fmt"
	"os/exec"
)

// findPyarrow returns the path of a python3 that can import pyarrow.
func findPyarrow() (string, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return "", err
	}
	if out, err := exec.Command(py, "-c", "import pyarrow").CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	return py, nil
}

// runPython runs script with args under python3 and returns its output.
func runPython(script string, args ...string) (string, error) {
	py, err := findPyarrow()
	if err != nil {
		return "", err
	}
	out, err := exec.Command(py, append([]string{"-c", script}, args...)...).CombinedOutput()
	return string(out), err
}
