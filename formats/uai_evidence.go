package formats

import (
	"fmt"
	"io"
	"os"
)

// Observation fixes variable Var to state State.
type Observation struct{ Var, State int }

// uaiEvToken is an integer token of an evidence file and where it stood.
type uaiEvToken struct{ val, line, pos int }

// ReadEvidence parses a UAI evidence (.evid) file into cases, each a list of
// observations in file order. name is used in error messages. When cards is
// not nil, every variable must be in [0, len(cards)) and every state in
// [0, cards[var]); a variable may appear only once in a case.
//
// Two forms exist, and both hold only non-negative integers (lines
// beginning with 'c' are comments, as in model files):
//
//	2014 form:  n v1 s1 ... vn sn              (one case)
//	older form: C, then C cases "n v1 s1 ... vn sn"
//
// The 2014 form always has 1+2n tokens, an odd count. A file is read in the
// 2014 form when its token count is exactly 1+2·(first token) and that
// reading is valid; otherwise it is read in the older form, which must use
// up every token. The two can only both fit when the older form's C is even
// and equals twice its total number of observations (e.g. "2 1 0 1 0" is
// either (1,0),(1,0) or the cases {0=1} and {}); then the 2014 reading wins
// unless it is invalid (as here: variable 1 twice), so a valid 2014 file is
// never misread. An empty file is an error; "0" is one case without
// observations.
func ReadEvidence(r io.Reader, name string, cards []int) ([][]Observation, error) {
	s := uaiNewScanner(r, name)
	var toks []uaiEvToken
	for s.next() {
		v, err := s.intToken()
		if err != nil {
			return nil, err
		}
		toks = append(toks, uaiEvToken{v, s.tokLine, s.tokPos})
	}
	if s.err != nil {
		return nil, s.err
	}
	if len(toks) == 0 {
		return nil, s.endErr("number of observations (the file is empty)")
	}
	ev := uaiEvidence{name: name, cards: cards, toks: toks}

	var singleErr error
	if n := toks[0].val; n <= len(toks) && len(toks) == 1+2*n {
		obs, _, err := ev.observations(0, "", n)
		if err == nil {
			return [][]Observation{obs}, nil
		}
		singleErr = err
	}
	cases, err := ev.cases()
	if err == nil {
		return cases, nil
	}
	if singleErr != nil {
		// The token count matched the 2014 form, so its error is the
		// relevant one.
		return nil, singleErr
	}
	return nil, fmt.Errorf("%w (nor do the %d tokens fit the single-case 2014 form, which needs 1+2·%d)",
		err, len(toks), toks[0].val)
}

// intToken parses the current token as a non-negative integer.
func (s *uaiScanner) intToken() (int, error) {
	var n int
	if len(s.tok) == 0 {
		return 0, s.errorf("want a non-negative integer, got %s", uaiQuote(s.tok))
	}
	for _, c := range s.tok {
		if c < '0' || c > '9' {
			return 0, s.errorf("want a non-negative integer, got %s", uaiQuote(s.tok))
		}
		if n > (1<<62)/10 {
			return 0, s.errorf("integer %s is out of range", uaiQuote(s.tok))
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// uaiEvidence holds the tokens of an evidence file while one form is tried.
type uaiEvidence struct {
	name  string
	cards []int
	toks  []uaiEvToken
}

func (e *uaiEvidence) errorf(t uaiEvToken, format string, args ...any) error {
	return fmt.Errorf("%s:%d: token %d: %s", e.name, t.line, t.pos, fmt.Sprintf(format, args...))
}

// observations reads the n var/state pairs after token i (the count) and
// returns them with the index of the token after them. label names the case
// in messages ("" for the single case).
func (e *uaiEvidence) observations(i int, label string, n int) ([]Observation, int, error) {
	count := e.toks[i]
	if rest := len(e.toks) - i - 1; n > rest/2 {
		return nil, 0, e.errorf(count, "%sdeclares %d observations, but only %d tokens follow", label, n, rest)
	}
	obs := make([]Observation, n)
	seen := make(map[int]bool, n)
	for j := range obs {
		vt, st := e.toks[i+1+2*j], e.toks[i+2+2*j]
		v, x := vt.val, st.val
		if e.cards != nil {
			if v >= len(e.cards) {
				return nil, 0, e.errorf(vt, "%sobservation %d: variable %d out of range [0,%d)", label, j, v, len(e.cards))
			}
			if x >= e.cards[v] {
				return nil, 0, e.errorf(st, "%sobservation %d: state %d of variable %d out of range [0,%d)", label, j, x, v, e.cards[v])
			}
		}
		if seen[v] {
			return nil, 0, e.errorf(vt, "%sobservation %d: variable %d observed twice", label, j, v)
		}
		seen[v] = true
		obs[j] = Observation{Var: v, State: x}
	}
	return obs, i + 1 + 2*n, nil
}

// cases reads the older multi-case form.
func (e *uaiEvidence) cases() ([][]Observation, error) {
	c := e.toks[0].val
	if c > len(e.toks)-1 {
		return nil, e.errorf(e.toks[0], "declares %d cases, but only %d tokens follow", c, len(e.toks)-1)
	}
	out := make([][]Observation, 0, c)
	i := 1
	for k := range c {
		if i >= len(e.toks) {
			last := e.toks[len(e.toks)-1]
			return nil, fmt.Errorf("%s:%d: unexpected end of input after case %d, want case %d of %d",
				e.name, last.line, k-1, k, c)
		}
		obs, next, err := e.observations(i, fmt.Sprintf("case %d ", k), e.toks[i].val)
		if err != nil {
			return nil, err
		}
		out = append(out, obs)
		i = next
	}
	if i < len(e.toks) {
		return nil, e.errorf(e.toks[i], "unexpected token %d after the last of %d cases", e.toks[i].val, c)
	}
	return out, nil
}

// ReadEvidenceFile reads the evidence file at path; see ReadEvidence.
func ReadEvidenceFile(path string, cards []int) ([][]Observation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read evidence: %w", err)
	}
	defer f.Close()
	return ReadEvidence(f, path, cards)
}
