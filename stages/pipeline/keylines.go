package pipeline

import "strings"

// keyIndex maps every key defined in a TOML document to the line that
// defines it. The TOML decoder keeps key positions private, and error
// messages about unknown keys or dangling inputs must name the line, so this
// small scanner recovers them. It runs only on documents the decoder has
// already accepted, so it can be lenient about malformed input.
type keyIndex struct {
	lines map[string]int
}

// keyJoin joins key parts unambiguously (TOML keys may contain dots when quoted).
func keyJoin(parts []string) string { return strings.Join(parts, "\x00") }

// line returns the line defining key, or of its nearest defined ancestor, or 0.
func (ix *keyIndex) line(key ...string) int {
	if ix == nil {
		return 0
	}
	for n := len(key); n > 0; n-- {
		if l, ok := ix.lines[keyJoin(key[:n])]; ok {
			return l
		}
	}
	return 0
}

// indexKeys scans src and records the line of every table header, key/value
// pair and inline-table key.
func indexKeys(src string) *keyIndex {
	s := &keyScanner{src: src, line: 1, ix: &keyIndex{lines: make(map[string]int)}}
	s.document()
	return s.ix
}

type keyScanner struct {
	src  string
	pos  int
	line int
	ix   *keyIndex
}

func (s *keyScanner) eof() bool { return s.pos >= len(s.src) }

func (s *keyScanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.src[s.pos]
}

func (s *keyScanner) advance() {
	if s.src[s.pos] == '\n' {
		s.line++
	}
	s.pos++
}

func (s *keyScanner) record(key []string, line int) {
	k := keyJoin(key)
	if _, ok := s.ix.lines[k]; !ok {
		s.ix.lines[k] = line
	}
}

// skipSpace skips blanks and comments, and newlines too when newlines is set.
func (s *keyScanner) skipSpace(newlines bool) {
	for !s.eof() {
		switch c := s.peek(); {
		case c == ' ' || c == '\t' || c == '\r':
			s.advance()
		case c == '\n' && newlines:
			s.advance()
		case c == '#':
			for !s.eof() && s.peek() != '\n' {
				s.advance()
			}
		default:
			return
		}
	}
}

func (s *keyScanner) skipLine() {
	for !s.eof() && s.peek() != '\n' {
		s.advance()
	}
}

func (s *keyScanner) document() {
	var table []string
	for {
		s.skipSpace(true)
		if s.eof() {
			return
		}
		start := s.pos
		line := s.line
		if s.peek() == '[' {
			s.advance()
			if s.peek() == '[' {
				s.advance()
			}
			s.skipSpace(false)
			table = s.key()
			for i := 1; i <= len(table); i++ {
				s.record(table[:i], line)
			}
			s.skipLine()
			continue
		}
		key := s.key()
		s.skipSpace(false)
		if len(key) == 0 || s.peek() != '=' {
			s.skipLine()
		} else {
			s.advance()
			full := append(append([]string(nil), table...), key...)
			for i := len(table) + 1; i <= len(full); i++ {
				s.record(full[:i], line)
			}
			s.value(full)
		}
		if s.pos == start { // guarantee progress on input we do not understand
			s.advance()
		}
	}
}

// key reads a possibly dotted key made of bare and quoted parts.
func (s *keyScanner) key() []string {
	var parts []string
	for {
		s.skipSpace(false)
		var part string
		switch c := s.peek(); {
		case c == '"' || c == '\'':
			part = s.quoted(c)
		case isBareKeyChar(c):
			start := s.pos
			for !s.eof() && isBareKeyChar(s.peek()) {
				s.advance()
			}
			part = s.src[start:s.pos]
		default:
			return parts
		}
		parts = append(parts, part)
		s.skipSpace(false)
		if s.peek() != '.' {
			return parts
		}
		s.advance()
	}
}

func isBareKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// quoted reads a single-line or multi-line string starting with quote and
// returns its raw contents (escapes are not interpreted: keys with escapes
// are rare enough that an approximate line is acceptable).
func (s *keyScanner) quoted(quote byte) string {
	triple := strings.Repeat(string(quote), 3)
	if strings.HasPrefix(s.src[s.pos:], triple) {
		s.pos += 3
		start := s.pos
		for !s.eof() && !strings.HasPrefix(s.src[s.pos:], triple) {
			if quote == '"' && s.peek() == '\\' {
				s.advance()
				if s.eof() {
					break
				}
			}
			s.advance()
		}
		text := s.src[start:s.pos]
		for i := 0; i < 3 && !s.eof(); i++ {
			s.advance()
		}
		for !s.eof() && s.peek() == quote { // up to two quotes may close the string
			s.advance()
		}
		return text
	}
	s.advance()
	start := s.pos
	for !s.eof() && s.peek() != quote && s.peek() != '\n' {
		if quote == '"' && s.peek() == '\\' {
			s.advance()
			if s.eof() {
				break
			}
		}
		s.advance()
	}
	text := s.src[start:s.pos]
	if !s.eof() && s.peek() == quote {
		s.advance()
	}
	return text
}

// value skips one value; keys of inline tables are recorded under prefix
// (nil inside arrays, whose elements have no key of their own).
func (s *keyScanner) value(prefix []string) {
	s.skipSpace(false)
	switch c := s.peek(); c {
	case '"', '\'':
		s.quoted(c)
	case '[':
		s.advance()
		for {
			s.skipSpace(true)
			if s.eof() {
				return
			}
			if s.peek() == ']' {
				s.advance()
				return
			}
			if s.peek() == ',' {
				s.advance()
				continue
			}
			start := s.pos
			s.value(nil)
			if s.pos == start {
				s.advance()
			}
		}
	case '{':
		s.advance()
		for {
			s.skipSpace(true)
			if s.eof() {
				return
			}
			if s.peek() == '}' {
				s.advance()
				return
			}
			if s.peek() == ',' {
				s.advance()
				continue
			}
			start := s.pos
			line := s.line
			key := s.key()
			s.skipSpace(false)
			if len(key) > 0 && s.peek() == '=' {
				s.advance()
				var full []string
				if prefix != nil {
					full = append(append([]string(nil), prefix...), key...)
					for i := len(prefix) + 1; i <= len(full); i++ {
						s.record(full[:i], line)
					}
				}
				s.value(full)
			}
			if s.pos == start {
				s.advance()
			}
		}
	default: // number, bool, date: runs to a delimiter
		for !s.eof() && !strings.ContainsRune(",]}\n#", rune(s.peek())) {
			s.advance()
		}
	}
}
