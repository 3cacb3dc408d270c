package proc

import (
	"slices"
	"testing"
)

func TestTailWriter(t *testing.T) {
	tw := &tailWriter{max: 3}
	for _, chunk := range []string{"one\ntw", "o\nthree\n", "four\r\nfi", "ve"} {
		tw.Write([]byte(chunk))
	}
	if got, want := tw.lines(), []string{"three", "four", "five"}; !slices.Equal(got, want) {
		t.Errorf("tail = %q, want %q", got, want)
	}
}
