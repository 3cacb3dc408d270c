package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// uaiMaxToken bounds a single token. The longest exact decimal form of a
// float64 has under 800 significant digits, so anything longer is garbage and
// must not grow a buffer without limit.
const uaiMaxToken = 4096

// uaiScanner splits UAI text into whitespace-separated tokens, remembering the
// line and the position within the line of the last token for error messages.
// Line breaks carry no meaning in UAI files, so they only count lines here,
// except that a line whose first token begins with 'c' is a comment (UAI
// 2016) and is skipped whole.
type uaiScanner struct {
	r    io.Reader
	name string
	buf  []byte
	i, n int   // unread bytes are buf[i:n]
	done bool  // r is exhausted (or failed: see err)
	err  error // read error or token too long; reported by endErr

	line    int // line of the scan position, from 1
	lineTok int // tokens started so far on that line

	tok     []byte // last token
	tokLine int    // its line
	tokPos  int    // its position on the line, from 1
}

func uaiNewScanner(r io.Reader, name string) *uaiScanner {
	return &uaiScanner{r: r, name: name, buf: make([]byte, 64<<10), line: 1}
}

// fill reads more input; it reports whether any unread bytes are available.
func (s *uaiScanner) fill() bool {
	for s.i == s.n && !s.done {
		n, err := s.r.Read(s.buf)
		s.i, s.n = 0, n
		if err == io.EOF {
			s.done = true
		} else if err != nil {
			s.done = true
			s.err = fmt.Errorf("%s:%d: read: %w", s.name, s.line, err)
		}
	}
	return s.i < s.n
}

func uaiIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// next advances to the next token. It returns false at the end of the input,
// on a read error or on an overlong token; endErr then says which.
func (s *uaiScanner) next() bool {
	if s.err != nil {
		return false
	}
	for {
		if s.i == s.n && !s.fill() {
			return false
		}
		c := s.buf[s.i]
		if c == 'c' && s.lineTok == 0 {
			s.skipLine()
			continue
		}
		if !uaiIsSpace(c) {
			break
		}
		if c == '\n' {
			s.line++
			s.lineTok = 0
		}
		s.i++
	}
	s.lineTok++
	s.tokLine, s.tokPos = s.line, s.lineTok
	s.tok = s.tok[:0]
	for {
		if s.i == s.n && !s.fill() {
			break
		}
		j := s.i
		for j < s.n && !uaiIsSpace(s.buf[j]) {
			j++
		}
		if len(s.tok)+j-s.i > uaiMaxToken {
			s.err = s.errorf("token longer than %d bytes", uaiMaxToken)
			return false
		}
		s.tok = append(s.tok, s.buf[s.i:j]...)
		s.i = j
		if j < s.n {
			break
		}
	}
	if s.err != nil {
		// The read failed in the middle of this token: it may be cut short.
		return false
	}
	if s.tokLine == 1 && s.tokPos == 1 && bytes.HasPrefix(s.tok, uaiBOM) {
		// Editors on Windows may start the file with a UTF-8 byte order mark.
		s.tok = s.tok[len(uaiBOM):]
		if len(s.tok) == 0 || s.tok[0] == 'c' {
			if len(s.tok) > 0 {
				s.skipLine()
			}
			s.lineTok--
			return s.next()
		}
	}
	return true
}

var uaiBOM = []byte("\xef\xbb\xbf")

// skipLine skips a comment: the rest of the line, up to but not including
// its line break. The UAI 2016 format makes every line that begins with 'c'
// a comment, anywhere in the file; no token of a model, evidence or result
// file begins with 'c', so a line whose first token does (after blanks) is
// one too.
func (s *uaiScanner) skipLine() {
	for s.i < s.n || s.fill() {
		if j := bytes.IndexByte(s.buf[s.i:s.n], '\n'); j >= 0 {
			s.i += j
			return
		}
		s.i = s.n
	}
}

// errorf describes a problem with the last token.
func (s *uaiScanner) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: token %d: %s", s.name, s.tokLine, s.tokPos, fmt.Sprintf(format, args...))
}

// endErr explains why next returned false while want was expected.
func (s *uaiScanner) endErr(want string) error {
	if s.err != nil {
		return s.err
	}
	if s.tokPos == 0 {
		return fmt.Errorf("%s:%d: unexpected end of input, want %s", s.name, s.line, want)
	}
	return fmt.Errorf("%s:%d: unexpected end of input after token %d, want %s", s.name, s.tokLine, s.tokPos, want)
}

// extra checks that no token follows the parsed content.
func (s *uaiScanner) extra(after string) error {
	if s.next() {
		return s.errorf("unexpected %s after %s", uaiQuote(s.tok), after)
	}
	return s.err
}

// count reads an integer >= lo described by what.
func (s *uaiScanner) count(what string, lo int) (int, error) {
	if !s.next() {
		return 0, s.endErr(what)
	}
	n, err := strconv.Atoi(string(s.tok))
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, s.errorf("%s %s is out of range", what, uaiQuote(s.tok))
		}
		return 0, s.errorf("want %s (an integer), got %s", what, uaiQuote(s.tok))
	}
	if n < lo {
		return 0, s.errorf("%s is %d, want >= %d", what, n, lo)
	}
	return n, nil
}

// countIn reads an integer in [lo, hi] described by what.
func (s *uaiScanner) countIn(what string, lo, hi int) (int, error) {
	n, err := s.count(what, lo)
	if err == nil && n > hi {
		return 0, s.errorf("%s is %d, above the bound %d", what, n, hi)
	}
	return n, err
}

// uaiQuote shows a token in an error message, shortened if it is long.
func uaiQuote(tok []byte) string {
	const max = 40
	if len(tok) > max {
		return strconv.Quote(string(tok[:max])) + "..."
	}
	return strconv.Quote(string(tok))
}

// uaiLog is math.Log made exact for subnormal inputs: on amd64 math.Log
// ignores the subnormal scaling (log(5e-324) gives -709.09, not -744.44;
// golang/go#56600), so scale into the normal range first.
func uaiLog(p float64) float64 {
	if p > 0 && p < 0x1p-1022 {
		return math.Log(p*0x1p64) - 64*math.Ln2
	}
	return math.Log(p)
}

// uaiExp is math.Exp without the early overflow of the amd64 version, which
// returns +Inf from x ≈ 709.44 although e^x is finite up to x ≈ 709.78. Far
// from 0 it squares e^(x/2), which costs about one ulp and rounds a
// subnormal or overflowing result only once.
func uaiExp(x float64) float64 {
	if x > 700 || x < -700 {
		h := math.Exp(x / 2)
		return h * h
	}
	return math.Exp(x)
}
