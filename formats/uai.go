package formats

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/renn-go/renn/core/mrf"
)

// uaiMaxPrealloc bounds how many elements a declared count may reserve before
// the corresponding tokens have been read, so a forged header cannot force a
// huge allocation; longer lists grow as their tokens arrive.
const uaiMaxPrealloc = 1 << 16

func uaiCap(n int) int { return min(n, uaiMaxPrealloc) }

// ReadUAI parses a UAI MARKOV or BAYES model (the UAI inference competition
// format) and returns it with its preamble, "MARKOV" or "BAYES". The file is
// a sequence of whitespace-separated tokens; line breaks carry no meaning,
// except that a line beginning with 'c' is a comment, anywhere in the file
// (UAI 2016 format):
//
//	MARKOV or BAYES (matched without regard to case)
//	number of variables n, then n cardinalities (>= 1)
//	number of factors F, then F scopes, each "k v1 ... vk"
//	F tables in the same order, each "size e1 ... e_size"
//
// Sizes are bounded before anything is allocated: cardinalities by
// mrf.MaxCardinality, their sum (hence n) by mrf.MaxStates, F by
// mrf.MaxFactors and every table by mrf.MaxTableSize entries.
//
// Tables hold raw potentials with the LAST scope variable changing fastest,
// the layout of mrf.Factor.LogTable, so scopes are kept in file order.
// Potentials must be finite and non-negative; a zero potential becomes -Inf.
// In a BAYES file the last variable of each scope is the child and the table
// its conditional probability table; the model is the same product of
// factors (normalisation of the tables is not checked).
//
// name is used in error messages, usually the file's path: errors read
// "name:line: token k: what was wrong", k counting tokens on that line.
func ReadUAI(r io.Reader, name string) (*mrf.Model, string, error) {
	s := uaiNewScanner(r, name)
	if !s.next() {
		return nil, "", s.endErr("preamble MARKOV or BAYES")
	}
	var kind string
	switch p := string(s.tok); {
	case strings.EqualFold(p, "MARKOV"):
		kind = "MARKOV"
	case strings.EqualFold(p, "BAYES"):
		kind = "BAYES"
	default:
		return nil, "", s.errorf("want preamble MARKOV or BAYES, got %s", uaiQuote(s.tok))
	}

	// Every variable has at least one state, so MaxStates bounds their number.
	nvars, err := s.countIn("number of variables", 1, mrf.MaxStates)
	if err != nil {
		return nil, "", err
	}
	m := &mrf.Model{Cards: make([]int, 0, uaiCap(nvars))}
	states := 0
	for i := range nvars {
		c, err := s.countIn(fmt.Sprintf("cardinality of variable %d", i), 1, mrf.MaxCardinality)
		if err != nil {
			return nil, "", err
		}
		if states += c; states > mrf.MaxStates {
			return nil, "", s.errorf("variables 0 to %d have %d states in all, above the bound %d", i, states, mrf.MaxStates)
		}
		m.Cards = append(m.Cards, c)
	}

	nfac, err := s.countIn("number of factors", 0, mrf.MaxFactors)
	if err != nil {
		return nil, "", err
	}
	m.Factors = make([]mrf.Factor, 0, uaiCap(nfac))
	sizes := make([]int, 0, uaiCap(nfac))
	// seen[v] == a+1 when variable v is already in the scope of factor a.
	seen := make([]int, nvars)
	for a := range nfac {
		k, err := s.count(fmt.Sprintf("scope size of factor %d", a), 0)
		if err != nil {
			return nil, "", err
		}
		if k > nvars {
			return nil, "", s.errorf("scope of factor %d has %d variables, the model only %d", a, k, nvars)
		}
		if k == 0 && kind == "BAYES" {
			return nil, "", s.errorf("scope of factor %d is empty, a BAYES table needs a child variable", a)
		}
		vars := make([]int, k)
		size := 1
		for j := range vars {
			v, err := s.count(fmt.Sprintf("variable %d of the scope of factor %d", j, a), 0)
			if err != nil {
				return nil, "", err
			}
			if v >= nvars {
				return nil, "", s.errorf("scope of factor %d: variable %d out of range [0,%d)", a, v, nvars)
			}
			if seen[v] == a+1 {
				return nil, "", s.errorf("scope of factor %d repeats variable %d", a, v)
			}
			seen[v] = a + 1
			vars[j] = v
			hi, lo := bits.Mul64(uint64(size), uint64(m.Cards[v]))
			if hi != 0 || lo > mrf.MaxTableSize {
				return nil, "", s.errorf("table of factor %d is too large: the cardinalities of its scope multiply to more than %d entries", a, mrf.MaxTableSize)
			}
			size = int(lo)
		}
		m.Factors = append(m.Factors, mrf.Factor{Vars: vars})
		sizes = append(sizes, size)
	}

	var prev uaiEntry // the last entry of the previous table
	for a := range m.Factors {
		last, atSize, err := uaiTable(s, m, a, sizes[a])
		if err != nil {
			if short := prev.short(s.name, m, a-1, sizes); atSize && short != nil {
				return nil, "", short
			}
			return nil, "", err
		}
		prev = last
	}
	if err := s.extra("the last table"); err != nil {
		return nil, "", err
	}
	return m, kind, nil
}

// uaiTable reads the size and entries of the table of factor a, which
// needs size entries, and returns its last entry; atSize says that an error
// is the table's size.
func uaiTable(s *uaiScanner, m *mrf.Model, a, size int) (last uaiEntry, atSize bool, err error) {
	f := &m.Factors[a]
	n, err := s.count(fmt.Sprintf("table size of factor %d", a), 0)
	if err != nil {
		return uaiEntry{}, true, err
	}
	if n != size {
		return uaiEntry{}, true, s.errorf("table of factor %d has %d entries, scope %s needs %d", a, n, uaiScope(f.Vars), size)
	}
	f.LogTable = make([]float64, 0, uaiCap(n))
	for i := range n {
		if !s.next() {
			return uaiEntry{}, false, s.endErr(fmt.Sprintf("entry %d of the %d-entry table of factor %d", i, n, a))
		}
		p, err := strconv.ParseFloat(string(s.tok), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return uaiEntry{}, false, s.errorf("entry %d of factor %d: want a potential (a number), got %s", i, a, uaiQuote(s.tok))
		}
		// ParseFloat reports overflow as ±Inf with ErrRange and accepts
		// "inf" and "nan": all are rejected here. Underflow gives 0 or a
		// subnormal without error, which is the nearest float64.
		if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return uaiEntry{}, false, s.errorf("entry %d of factor %d is %s, want a finite potential >= 0", i, a, uaiQuote(s.tok))
		}
		f.LogTable = append(f.LogTable, uaiLog(p))
	}
	if n == 0 {
		return uaiEntry{}, false, nil
	}
	return uaiEntry{tok: string(s.tok), line: s.tokLine, pos: s.tokPos, n: n}, false, nil
}

// uaiEntry is the last entry of a table, where it was, and the table's size.
type uaiEntry struct {
	tok       string
	line, pos int
	n         int
}

// short explains a table of factor a+1 that does not begin where it should
// by the table of factor a one entry short: when the last entry read for
// factor a is the size the next table needs, the file most likely left an
// entry of factor a out and that entry is the next table's size. It returns
// nil when the last entry does not read so.
func (e uaiEntry) short(name string, m *mrf.Model, a int, sizes []int) error {
	if a < 0 || a+1 >= len(sizes) || e.n == 0 || e.tok != strconv.Itoa(sizes[a+1]) {
		return nil
	}
	return fmt.Errorf("%s:%d: token %d: table of factor %d is one entry short: scope %s needs %d entries, and the last one read, %s, is the size of the table of factor %d (which then does not fit)",
		name, e.line, e.pos, a, uaiScope(m.Factors[a].Vars), e.n, uaiQuote([]byte(e.tok)), a+1)
}

// uaiScope formats a scope as in error messages: (0 4).
func uaiScope(vars []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for j, v := range vars {
		if j > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(v))
	}
	b.WriteByte(')')
	return b.String()
}

// ReadUAIFile reads the UAI model in the file at path; see ReadUAI.
func ReadUAIFile(path string) (*mrf.Model, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("read UAI model: %w", err)
	}
	defer f.Close()
	return ReadUAI(f, path)
}

// WriteUAI writes m as a UAI MARKOV file. Potentials are exp(LogTable)
// (0 for -Inf), each in the shortest form that reads back as the same float64
// (strconv 'g', -1), so ReadUAI recovers every log-potential to within a few
// ulps. Each table's size is on its own line, and its entries follow in rows
// of the last scope variable's states.
//
// Raw potentials cannot hold every log-potential: below about -708.4 the
// potential is subnormal and keeps fewer digits, below about -745.1 it
// underflows to 0 (read back as -Inf), and above about 709.78 it overflows,
// which is an error.
func WriteUAI(w io.Writer, m *mrf.Model) error {
	if m == nil {
		return errors.New("write UAI: nil model")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("write UAI: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	buf := make([]byte, 0, 64)
	line := func(xs []int) {
		buf = buf[:0]
		for j, x := range xs {
			if j > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendInt(buf, int64(x), 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	fmt.Fprintf(bw, "MARKOV\n%d\n", len(m.Cards))
	line(m.Cards)
	fmt.Fprintf(bw, "%d\n", len(m.Factors))
	for _, f := range m.Factors {
		buf = strconv.AppendInt(buf[:0], int64(len(f.Vars)), 10)
		for _, v := range f.Vars {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(v), 10)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	for a, f := range m.Factors {
		row := 1
		if k := len(f.Vars); k > 0 {
			row = m.Cards[f.Vars[k-1]]
		}
		fmt.Fprintf(bw, "\n%d\n", len(f.LogTable))
		for i, l := range f.LogTable {
			p := uaiExp(l)
			if math.IsInf(p, 1) {
				return fmt.Errorf("write UAI: factor %d entry %d: log-potential %v exceeds the largest float64 potential", a, i, l)
			}
			buf = strconv.AppendFloat(buf[:0], p, 'g', -1, 64)
			if (i+1)%row == 0 || i == len(f.LogTable)-1 {
				buf = append(buf, '\n')
			} else {
				buf = append(buf, ' ')
			}
			bw.Write(buf)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write UAI: %w", err)
	}
	return nil
}

// WriteUAIFile writes m to path as a UAI MARKOV file (see WriteUAI). It
// writes a temporary file in the same directory and renames it over path, so
// path is either left as it was or replaced whole; on failure the temporary
// file is removed. The new file has mode 0644.
func WriteUAIFile(path string, m *mrf.Model) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("write UAI file: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := WriteUAI(f, m); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("write UAI file: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write UAI file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write UAI file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write UAI file: %w", err)
	}
	return nil
}
