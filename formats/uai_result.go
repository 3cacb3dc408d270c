package formats

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// UAI competition result files. The layout is the one of the UAI 2014 and
// 2016 inference competitions and the UAI 2022 competition ("Result File
// Format": personal.utdallas.edu/~vibhav.gogate/uai14-competition/resformat.html,
// uaicompetition.github.io/uci-2022/file-formats/result-format/):
//
//	MAR                                  PR
//	n c_0 p_0,0 ... p_0,c_0-1 c_1 ...    log10 Z
//
// The first line names the task; the solution follows, its tokens separated
// by whitespace. A file may hold several solutions, each after a line
// "-BEGIN-"; only the last counts. A MAR solution is the number of variables,
// then for every variable in model order its cardinality and the probability
// of each state. A PR solution is log10 of the partition function (of
// Pr(evidence) for a model with evidence); it may be followed by L or U to
// say it is a lower or upper bound.
//
// The writers print every number in the shortest form that reads back as the
// same float64 (strconv 'g', -1), so a written file reads back exactly; the
// competitions' own files print 6 digits after the point. They may start the
// file with comment lines ("c ...", which the UAI 2016 format allows
// anywhere), which the readers skip and ReadUAIResultHeader returns. The readers also
// accept the UAI 2010 form, where a solution starts with the number of
// evidence cases (one line per case follows), when that number is 1.

// UAIResultMAR and UAIResultPR are the tasks of the result files this package
// reads and writes, and the suffixes of their file names (<model>.uai.MAR).
const (
	UAIResultMAR = "MAR"
	UAIResultPR  = "PR"
)

// WriteMAR writes variable marginals as a UAI MAR result file: marg[i] is the
// distribution of variable i, its length the variable's cardinality. Each of
// comments is written first as a line "c <comment>".
func WriteMAR(w io.Writer, marg [][]float64, comments ...string) error {
	if len(marg) == 0 {
		return errors.New("write MAR: no variables")
	}
	for i, p := range marg {
		if len(p) == 0 {
			return fmt.Errorf("write MAR: variable %d has an empty marginal", i)
		}
	}
	head, err := uaiCommentLines(comments)
	if err != nil {
		return fmt.Errorf("write MAR: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	buf := append(make([]byte, 0, 64), head...)
	buf = append(buf, UAIResultMAR+"\n"...)
	buf = strconv.AppendInt(buf, int64(len(marg)), 10)
	bw.Write(buf)
	for _, p := range marg {
		buf = append(buf[:0], ' ')
		buf = strconv.AppendInt(buf, int64(len(p)), 10)
		for _, x := range p {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
		}
		bw.Write(buf)
	}
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write MAR: %w", err)
	}
	return nil
}

// WritePR writes log10 Z as a UAI PR result file, after comments as WriteMAR
// writes them. The value is written as given, -Inf and NaN included: saying
// what such a value means (a comment) is the caller's business.
func WritePR(w io.Writer, log10Z float64, comments ...string) error {
	head, err := uaiCommentLines(comments)
	if err != nil {
		return fmt.Errorf("write PR: %w", err)
	}
	line := head + UAIResultPR + "\n" + strconv.FormatFloat(log10Z, 'g', -1, 64) + "\n"
	if _, err := io.WriteString(w, line); err != nil {
		return fmt.Errorf("write PR: %w", err)
	}
	return nil
}

// uaiCommentLines returns comments as the lines "c <comment>\n". A comment
// holding a line break is refused: its next line would be read as data.
func uaiCommentLines(comments []string) (string, error) {
	var b strings.Builder
	for _, c := range comments {
		if strings.ContainsAny(c, "\n\r\v\f") {
			return "", fmt.Errorf("comment %q holds a line break", c)
		}
		b.WriteString("c " + c + "\n")
	}
	return b.String(), nil
}

// WriteTextFile writes text to path atomically: through a temporary file in
// path's directory (made if needed), synced and renamed over path, so a
// reader never sees half a file and a failed write leaves any previous file
// as it was.
func WriteTextFile(path, text string) error {
	if err := writeAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteMARFile writes marg to path atomically (see WriteMAR).
func WriteMARFile(path string, marg [][]float64, comments ...string) error {
	if err := writeAtomic(path, func(w io.Writer) error { return WriteMAR(w, marg, comments...) }); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WritePRFile writes log10Z to path atomically (see WritePR).
func WritePRFile(path string, log10Z float64, comments ...string) error {
	if err := writeAtomic(path, func(w io.Writer) error { return WritePR(w, log10Z, comments...) }); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// uaiHeaderMax bounds what ReadUAIResultHeader reads: a header is a few
// short lines, and a file that is not a result file must not be read whole.
const uaiHeaderMax = 64 << 10

// ReadUAIResultHeader returns the comment lines at the top of the UAI result
// file at path, before its first line of data (the task line), each without
// its "c" and the blanks after it. Blank lines are skipped; a byte order
// mark is allowed. Only the first 64 KiB are read.
func ReadUAIResultHeader(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(io.LimitReader(f, uaiHeaderMax))
	var out []string
	for first := true; ; first = false {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read header of %s: %w", path, err)
		}
		if first {
			line = strings.TrimPrefix(line, string(uaiBOM))
		}
		t := strings.TrimLeft(line, " \t\r\v\f")
		switch {
		case strings.HasPrefix(t, "c"):
			out = append(out, strings.TrimSpace(t[1:]))
		case strings.TrimSpace(t) != "":
			return out, nil
		}
		if err != nil {
			return out, nil
		}
	}
}

// uaiSolution reads a result file's task line and returns the tokens of its
// last solution, with where each stood.
func uaiSolution(r io.Reader, name, task string) ([]uaiResToken, error) {
	s := uaiNewScanner(r, name)
	if !s.next() {
		return nil, s.endErr("task " + task)
	}
	if got := string(s.tok); !strings.EqualFold(got, task) {
		return nil, s.errorf("want task %s, got %s", task, uaiQuote(s.tok))
	}
	var toks []uaiResToken
	for s.next() {
		if string(s.tok) == "-BEGIN-" {
			toks = toks[:0]
			continue
		}
		toks = append(toks, uaiResToken{string(s.tok), s.tokLine, s.tokPos})
	}
	if s.err != nil {
		return nil, s.err
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("%s: no %s solution after the last task or -BEGIN- line", name, task)
	}
	return toks, nil
}

// uaiResToken is a token of a result file and where it stood.
type uaiResToken struct {
	s         string
	line, pos int
}

func (t uaiResToken) errorf(name, format string, args ...any) error {
	return fmt.Errorf("%s:%d: token %d: %s", name, t.line, t.pos, fmt.Sprintf(format, args...))
}

func (t uaiResToken) int(name, what string, lo int) (int, error) {
	n, err := strconv.Atoi(t.s)
	if err != nil {
		return 0, t.errorf(name, "want %s (an integer), got %s", what, strconv.Quote(t.s))
	}
	if n < lo {
		return 0, t.errorf(name, "%s is %d, want >= %d", what, n, lo)
	}
	return n, nil
}

func (t uaiResToken) float(name, what string) (float64, error) {
	x, err := strconv.ParseFloat(t.s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, t.errorf(name, "want %s (a number), got %s", what, strconv.Quote(t.s))
	}
	return x, nil
}

// ReadMAR reads a UAI MAR result file and returns the variable marginals of
// its last solution (see WriteMAR for the layout). When cards is not nil the
// solution must have len(cards) variables with those cardinalities.
// Probabilities are returned as written; they are not checked or normalised.
func ReadMAR(r io.Reader, name string, cards []int) ([][]float64, error) {
	toks, err := uaiSolution(r, name, UAIResultMAR)
	if err != nil {
		return nil, err
	}
	marg, err := uaiMarginals(toks, name, cards)
	if err != nil && toks[0].s == "1" && len(toks) > 1 {
		// The UAI 2010 form: one evidence case, then its solution line.
		if m2, err2 := uaiMarginals(toks[1:], name, cards); err2 == nil {
			return m2, nil
		}
	}
	return marg, err
}

// uaiMarginals parses "n c p... c p..." using every token.
func uaiMarginals(toks []uaiResToken, name string, cards []int) ([][]float64, error) {
	n, err := toks[0].int(name, "number of variables", 1)
	if err != nil {
		return nil, err
	}
	if cards != nil && n != len(cards) {
		return nil, toks[0].errorf(name, "%d variables, the model has %d", n, len(cards))
	}
	marg := make([][]float64, 0, min(n, len(toks)))
	k := 1
	for i := range n {
		if k >= len(toks) {
			last := toks[len(toks)-1]
			return nil, last.errorf(name, "unexpected end of the solution, want the cardinality of variable %d of %d", i, n)
		}
		c, err := toks[k].int(name, fmt.Sprintf("cardinality of variable %d", i), 1)
		if err != nil {
			return nil, err
		}
		if cards != nil && c != cards[i] {
			return nil, toks[k].errorf(name, "variable %d has cardinality %d, the model says %d", i, c, cards[i])
		}
		if len(toks)-k-1 < c {
			return nil, toks[k].errorf(name, "variable %d has %d states, but only %d tokens follow", i, c, len(toks)-k-1)
		}
		p := make([]float64, c)
		for j := range p {
			if p[j], err = toks[k+1+j].float(name, fmt.Sprintf("probability of state %d of variable %d", j, i)); err != nil {
				return nil, err
			}
		}
		marg = append(marg, p)
		k += 1 + c
	}
	if k < len(toks) {
		return nil, toks[k].errorf(name, "unexpected %s after the marginal of the last of %d variables", strconv.Quote(toks[k].s), n)
	}
	return marg, nil
}

// ReadPR reads a UAI PR result file and returns log10 Z of its last
// solution. A bound letter (L or U) after the value is accepted and ignored.
func ReadPR(r io.Reader, name string) (float64, error) {
	toks, err := uaiSolution(r, name, UAIResultPR)
	if err != nil {
		return 0, err
	}
	if len(toks) >= 2 && toks[0].s == "1" && !isBound(toks[1].s) {
		toks = toks[1:] // the UAI 2010 form: one evidence case
	}
	v, err := toks[0].float(name, "log10 Z")
	if err != nil {
		return 0, err
	}
	rest := toks[1:]
	if len(rest) > 0 && isBound(rest[0].s) {
		rest = rest[1:]
	}
	if len(rest) > 0 {
		return 0, rest[0].errorf(name, "unexpected %s after the PR value", strconv.Quote(rest[0].s))
	}
	return v, nil
}

func isBound(s string) bool { return s == "L" || s == "U" }

// ReadMARFile reads the MAR result file at path; see ReadMAR.
func ReadMARFile(path string, cards []int) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read MAR: %w", err)
	}
	defer f.Close()
	return ReadMAR(f, path, cards)
}

// ReadPRFile reads the PR result file at path; see ReadPR.
func ReadPRFile(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("read PR: %w", err)
	}
	defer f.Close()
	return ReadPR(f, path)
}
