package formats

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadEvidence(t *testing.T) {
	t.Parallel()
	cards := []int{2, 3, 2, 4}
	tests := []struct {
		name, text string
		cards      []int
		want       [][]Observation
	}{
		{"2014 form", "2 2 1 0 0\n", cards, [][]Observation{{{2, 1}, {0, 0}}}},
		{"2014 form over lines", "3\n3 3\n1 2\n\n0 1\n", cards, [][]Observation{{{3, 3}, {1, 2}, {0, 1}}}},
		{"2014 form, no evidence", "0\n", cards, [][]Observation{{}}},
		{"older form, one case", "1\n2 0 1 3 0\n", cards, [][]Observation{{{0, 1}, {3, 0}}}},
		{"older form, three cases", "3\n1 1 2\n0\n2 3 1 2 0\n", cards, [][]Observation{{{1, 2}}, {}, {{3, 1}, {2, 0}}}},
		{"zero is the 2014 form", "0 ", cards, [][]Observation{{}}},
		// 5 tokens fit both forms: (1,0),(1,0) repeats variable 1, so only
		// the older reading, cases {0=1} and {}, is valid.
		{"ambiguous, older valid", "2 1 0 1 0", cards, [][]Observation{{{0, 1}}, {}}},
		// Both readings valid ((0,1),(1,0), or cases {} and {1=0}): the 2014
		// form wins.
		{"ambiguous, both valid", "2 0 1 1 0", cards, [][]Observation{{{0, 1}, {1, 0}}}},
		// UAI 2016 comment lines, at the top and between the tokens.
		{"comments at the top", "c evidence\nc\n2 2 1 0 0\n", cards, [][]Observation{{{2, 1}, {0, 0}}}},
		{"comments in the middle", "2\nc first\n2 1\nc\n0 0\nc end", cards, [][]Observation{{{2, 1}, {0, 0}}}},
		{"older form with comments", "c three cases\n3\nc case 0\n1 1 2\n  c case 1\n0\nc case 2\n0\n", cards, [][]Observation{{{1, 2}}, {}, {}}},
		// Without cards, ranges are not checked.
		{"no cards", "1 1000 7", nil, [][]Observation{{{1000, 7}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadEvidence(strings.NewReader(tc.text), "x.evid", tc.cards)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadEvidenceFiles(t *testing.T) {
	t.Parallel()
	cards := uaiTestFiles[1].want.Cards // bayes_small.uai
	tests := map[string][][]Observation{
		"testdata/uai/bayes_small.uai.evid":            {{{2, 1}, {0, 0}}},
		"testdata/uai/bayes_small_cases.evid":          {{{1, 2}}, {{0, 1}, {2, 0}}},
		"testdata/uai/bayes_small_cases_comments.evid": {{{1, 2}}, {{0, 1}, {2, 0}}},
	}
	for path, want := range tests {
		got, err := ReadEvidenceFile(path, cards)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
	if _, err := ReadEvidenceFile(filepath.Join(t.TempDir(), "missing.evid"), cards); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want os.ErrNotExist", err)
	}
}

func TestReadEvidenceErrors(t *testing.T) {
	t.Parallel()
	cards := []int{2, 3, 2, 4}
	tests := []struct {
		name, text string
		want       string
	}{
		{"empty", "", "bad.evid:1: unexpected end of input, want number of observations (the file is empty)"},
		{"blank", "\n \n", "bad.evid:3: unexpected end of input"},
		{"not a number", "1 0 x", `bad.evid:1: token 3: want a non-negative integer, got "x"`},
		{"negative", "1\n0 -1\n", `bad.evid:2: token 2: want a non-negative integer, got "-1"`},
		{"fraction", "1 0 1.0", `bad.evid:1: token 3: want a non-negative integer, got "1.0"`},
		{"huge", "1 0 99999999999999999999", `bad.evid:1: token 3: integer "99999999999999999999" is out of range`},
		{"variable out of range", "2 0 1 4 0", "bad.evid:1: token 4: observation 1: variable 4 out of range [0,4)"},
		{"state out of range", "2\n0 1\n1 3\n", "bad.evid:3: token 2: observation 1: state 3 of variable 1 out of range [0,3)"},
		{"repeated variable", "2 3 1 3 2", "bad.evid:1: token 4: observation 1: variable 3 observed twice"},
		{"case state out of range", "1\n2 0 1 2 5\n", "bad.evid:2: token 5: case 0 observation 1: state 5 of variable 2 out of range [0,2)"},
		{"case variable out of range", "2\n1 0 0\n1 9 0\n", "bad.evid:3: token 2: case 1 observation 0: variable 9 out of range [0,4)"},
		{"truncated", "3 0 1 1 2", "bad.evid:1: unexpected end of input after case 1, want case 2 of 3 (nor do the 5 tokens fit the single-case 2014 form, which needs 1+2·3)"},
		{"truncated case", "2\n1 0 1\n2 1 2\n", "bad.evid:3: token 1: case 1 declares 2 observations, but only 2 tokens follow"},
		{"missing case", "3\n1 0 1\n0\n", "bad.evid:3: unexpected end of input after case 1, want case 2 of 3"},
		{"too many cases", "9 1 0 1", "bad.evid:1: token 1: declares 9 cases, but only 3 tokens follow"},
		{"trailing tokens", "1\n1 0 1\n7 7\n", "bad.evid:3: token 1: unexpected token 7 after the last of 1 cases"},
		{"odd tokens", "1 0 1 2", "single-case 2014 form, which needs 1+2·1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadEvidence(strings.NewReader(tc.text), "bad.evid", cards)
			if err == nil {
				t.Fatalf("no error; got %v", got)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
	fail := errors.New("disk on fire")
	if _, err := ReadEvidence(iotest.ErrReader(fail), "broken.evid", cards); !errors.Is(err, fail) {
		t.Errorf("err = %v, want %v wrapped", err, fail)
	}
}
