package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// root is the repository root, relative to this package.
const root = ".."

// pages are the files whose numbers are checked.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md found")
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...)
}

// TestNumbersMatchSources checks every page: every quote is in its source
// file, every number a marker covers is one of its quotes' numbers, and no
// measured-looking figure stands outside markers, code and generated blocks.
func TestNumbersMatchSources(t *testing.T) {
	sources := map[string]string{}
	read := func(path string) (string, error) {
		if s, ok := sources[path]; ok {
			return s, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			return "", err
		}
		sources[path] = collapse(string(b))
		return sources[path], nil
	}
	checked := 0
	for _, page := range pages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.ToSlash(strings.TrimPrefix(page, root+string(filepath.Separator)))
		problems, n := checkPage(string(text), read)
		checked += n
		for _, p := range problems {
			t.Errorf("%s: %s", name, p)
		}
	}
	if checked == 0 {
		t.Error("no marked numbers found: the markers are not being parsed")
	}
	t.Logf("%d marked passages checked", checked)
}

// sourceReader returns the whitespace-collapsed text of a repository file.
type sourceReader func(path string) (string, error)

// checkPage returns what is wrong with one page, and how many marker
// groups it checked.
func checkPage(text string, read sourceReader) (problems []string, groups int) {
	for _, b := range blocks(prose(text)) {
		rest := b.text
		for {
			loc := markerGroup.FindStringIndex(rest)
			if loc == nil {
				problems = append(problems, unsourced(b.line, plain(rest))...)
				break
			}
			span, group := rest[:loc[0]], rest[loc[0]:loc[1]]
			rest = rest[loc[1]:]
			groups++
			problems = append(problems, checkGroup(b.line, plain(span), group, read)...)
		}
	}
	return problems, groups
}

var (
	marker      = regexp.MustCompile(`<!--\s*source:\s*(\S+)\s+"(.*?)"\s*-->`)
	markerGroup = regexp.MustCompile(`(?:<!--\s*source:\s*\S+\s+".*?"\s*-->\s*)+`)
	// number: digits with an optional fraction and exponent.
	number = regexp.MustCompile(`\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)
	// reference: a number that names a section, table or appendix of a
	// paper or report, not a quantity.
	reference = regexp.MustCompile(`(?i)\b(?:sections?|tables?|appendix|figure)\s+$`)
	unitAfter = regexp.MustCompile(`^\s?(?:%|s\b|ms\b|µs\b|min\b|minutes\b|h\b|hours\b|seconds\b|GiB\b|MiB\b|KiB\b|GB\b|MB\b|CPU)`)
)

// checkGroup checks one marker group against the text it covers.
func checkGroup(line int, span, group string, read sourceReader) []string {
	var problems []string
	var allowed []float64
	for _, m := range marker.FindAllStringSubmatch(group, -1) {
		path, quote := m[1], collapse(m[2])
		src, err := read(path)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("line %d: source %s: %v", line, path, err))
		case !strings.Contains(src, quote):
			problems = append(problems, fmt.Sprintf("line %d: %s does not contain %q (the source changed, or the quote is wrong)", line, path, quote))
		}
		for _, n := range numbers(quote) {
			allowed = append(allowed, n.value)
		}
	}
	for _, n := range numbers(span) {
		if !contains(allowed, n.value) {
			problems = append(problems, fmt.Sprintf("line %d: %s is not among the numbers of its source quotes %v: %q", line, n.text, allowed, strings.TrimSpace(collapse(span))))
		}
	}
	return problems
}

// unsourced returns a problem for every figure of text that looks measured.
func unsourced(line int, text string) []string {
	var problems []string
	for _, n := range numbers(text) {
		if n.measured {
			problems = append(problems, fmt.Sprintf("line %d: %s has no source marker (<!-- source: PATH \"QUOTE\" -->): %q", line, n.text, strings.TrimSpace(collapse(text))))
		}
	}
	return problems
}

// num is one number of a text.
type num struct {
	text     string
	value    float64
	measured bool // a decimal, a percentage, or followed by a unit
}

// numbers returns the numbers of a text that stand alone: not part of a
// name or a size such as K16, 5x5, l1 or log10.
func numbers(text string) []num {
	var out []num
	for _, loc := range number.FindAllStringIndex(text, -1) {
		s, e := loc[0], loc[1]
		before, _ := utf8.DecodeLastRuneInString(text[:s])
		after, _ := utf8.DecodeRuneInString(text[e:])
		if s > 0 && (isWordRune(before) || before == '.' || before == '/') {
			continue
		}
		if e < len(text) && (isWordRune(after) || after == '/') {
			continue
		}
		if reference.MatchString(text[:s]) {
			continue
		}
		tok := text[s:e]
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			continue
		}
		if negative(text[:s]) {
			v, tok = -v, "-"+tok
		}
		measured := strings.ContainsAny(tok, ".eE") || unitAfter.MatchString(text[e:])
		out = append(out, num{text: tok, value: v, measured: measured})
	}
	return out
}

// negative says whether the text before a number ends in a minus sign
// that is a sign, not a range or a date separator.
func negative(before string) bool {
	r, n := utf8.DecodeLastRuneInString(before)
	if r != '-' && r != '−' {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(before[:len(before)-n])
	return len(before) == n || strings.ContainsRune(" ([{,=", prev)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func contains(vs []float64, v float64) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}

// collapse replaces every run of whitespace by one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

var (
	fence        = regexp.MustCompile("^\\s*(```|~~~)")
	inlineCode   = regexp.MustCompile("`[^`]*`")
	linkTarget   = regexp.MustCompile(`\]\([^)]*\)`)
	generatedBeg = regexp.MustCompile(`^<!--\s*(\S+)\s+begin:\s*written by`)
	generatedEnd = regexp.MustCompile(`^<!--\s*(\S+)\s+end\s*-->`)
	numbered     = regexp.MustCompile(`^\d+\. `)
)

// prose returns the page with code blocks and generated blocks blanked
// out (lines kept, so line numbers stay right). Indented code
// blocks count as code when a blank line precedes them outside a list.
func prose(text string) []string {
	lines := strings.Split(text, "\n")
	out := make([]string, len(lines))
	inFence, generated, prevBlank, inList := false, "", true, false
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case generated != "":
			if m := generatedEnd.FindStringSubmatch(trimmed); m != nil && m[1] == generated {
				generated = ""
			}
		case fence.MatchString(l):
			inFence = !inFence
		case inFence:
		case generatedBeg.MatchString(trimmed):
			generated = generatedBeg.FindStringSubmatch(trimmed)[1]
		case strings.HasPrefix(l, "    ") && prevBlank && !inList:
			// an indented code block line: keep it blank, and let the next
			// indented line be code as well
			out[i] = ""
			continue
		default:
			out[i] = l
		}
		if trimmed == "" {
			prevBlank = true
		} else {
			prevBlank = false
			inList = strings.HasPrefix(trimmed, "- ") || numbered.MatchString(trimmed) || (inList && strings.HasPrefix(l, "  "))
		}
	}
	return out
}

// plain drops inline code and link targets from prose.
func plain(s string) string {
	return linkTarget.ReplaceAllString(inlineCode.ReplaceAllString(s, ""), "]")
}

// block is a paragraph or list item, and the line it starts on (1-based).
type block struct {
	line int
	text string
}

// blocks splits lines into paragraphs and list items.
func blocks(lines []string) []block {
	var out []block
	var cur []string
	start := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, block{line: start + 1, text: strings.Join(cur, "\n")})
		}
		cur = nil
	}
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "|") {
			flush()
		}
		if trimmed == "" {
			continue
		}
		if len(cur) == 0 {
			start = i
		}
		cur = append(cur, l)
	}
	flush()
	return out
}

// TestCheckPage checks the checker on small pages against a fake source.
func TestCheckPage(t *testing.T) {
	src := map[string]string{"R.md": collapse("GBP converged on **73** of 130 models in 2.6 s (f = −15).")}
	read := func(path string) (string, error) {
		if s, ok := src[path]; ok {
			return s, nil
		}
		return "", os.ErrNotExist
	}
	for _, tt := range []struct {
		name, page string
		problems   int
	}{
		{"right numbers", "It converged on 73 of 130 models.\n<!-- source: R.md \"converged on **73** of 130 models\" -->\n", 0},
		{"a wrong number", "It converged on 74 of 130 models.\n<!-- source: R.md \"converged on **73** of 130 models\" -->\n", 1},
		{"the source changed", "It converged on 73 of 130 models.\n<!-- source: R.md \"converged on **72** of 130 models\" -->\n", 2},
		{"a missing source", "It took 2.6 s.\n<!-- source: S.md \"2.6 s\" -->\n", 1},
		{"a signed number", "With f = −15 it took 2.6 s.\n<!-- source: R.md \"2.6 s (f = −15)\" -->\n", 0},
		{"a sign that differs", "With f = 15 it took 2.6 s.\n<!-- source: R.md \"2.6 s (f = −15)\" -->\n", 1},
		{"a figure without a source", "It took 2.6 s.\n", 1},
		{"a percentage without a source", "It converged on 96% of them.\n", 1},
		{"a count without a source is not a figure", "Ten models, 20 of them on grids.\n", 0},
		{"names and sizes are not numbers", "K16 and 5x5 grids, l1 and log10.\n", 0},
		{"inline code may span lines", "Run `--tol\n1e-9` now.\n", 0},
		{"code is not checked", "Run `--tol 1e-9` for 2.5 s:\n\n```sh\nsleep 2.5\n```\n", 1},
		{"a generated block is not checked", "<!-- t begin: written by gen -->\n| 0.5 s |\n<!-- t end -->\n", 0},
		{"the marker covers its paragraph only", "It took 2.6 s.\n\nThen 3.1 s.\n<!-- source: R.md \"2.6 s\" -->\n", 2},
		{"section numbers are references", "As in section 5.1 and Table 3.\n", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			problems, _ := checkPage(tt.page, read)
			if len(problems) != tt.problems {
				t.Errorf("%d problems, want %d: %q", len(problems), tt.problems, problems)
			}
		})
	}
}
