package config

import (
	"strings"
	"testing"
)

// ${NAME} and ${NAME:-DEFAULT} in a flag value take the environment
// variable; an unset one without a default is a config error naming it.
func TestParseConfigEnv(t *testing.T) {
	t.Setenv("RENN_TEST_DIR", "my/models")
	t.Setenv("RENN_TEST_EMPTY", "")
	src := `
[stage.s]
run = ["sample-model", "uai"]
flags = { in = "${RENN_TEST_DIR}", out2 = "${RENN_TEST_UNSET:-data/uai}", e = "${RENN_TEST_EMPTY:-d}", keep = "a$b", list = ["${RENN_TEST_DIR}/x", "y"] }
`
	c, err := Parse("p.toml", "/p", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, f := range c.Stages[0].Flags {
		args = append(args, f.Arg())
	}
	want := "--in=my/models --out2=data/uai --e=d --keep=a$b --list=my/models/x,y"
	if got := strings.Join(args, " "); got != want {
		t.Errorf("flags %q, want %q", got, want)
	}
	for _, bad := range []string{`"${RENN_TEST_UNSET}"`, `"${RENN_TEST_DIR"`, `"${}"`} {
		_, err := Parse("p.toml", "/p", []byte("[stage.s]\nrun = [\"x\"]\nflags = { in = "+bad+" }\n"))
		if err == nil {
			t.Errorf("%s: no error", bad)
			continue
		}
		if bad == `"${RENN_TEST_UNSET}"` && !strings.Contains(err.Error(), "RENN_TEST_UNSET is not set") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
