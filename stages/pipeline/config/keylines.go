package config

import (
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyIndex maps every key defined in a TOML document to the line that
// defines it, so that mistakes found after decoding (an unknown key, a
// dangling input, a cycle) can name their line. The decoder, BurntSushi's,
// keeps key positions to itself; go-toml's parser gives every key's
// position in the source.
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

// indexKeys records the line of every table header, key/value pair and
// inline-table key of src. Keys inside arrays have no name of their own
// and are left out. A key defined more than once (a table named by several
// headers) keeps its first line. A document the parser rejects, which the
// decoder has accepted already, is indexed up to the mistake.
func indexKeys(src string) *keyIndex {
	ix := &keyIndex{lines: make(map[string]int)}
	var p unstable.Parser
	p.Reset([]byte(src))
	var table []string // the key of the last table header
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = ix.key(&p, nil, e.Key())
		case unstable.KeyValue:
			ix.keyValue(&p, table, e)
		}
	}
	return ix
}

// key records the parts of a dotted key under prefix and returns the whole key.
func (ix *keyIndex) key(p *unstable.Parser, prefix []string, parts unstable.Iterator) []string {
	key := slices.Clone(prefix)
	for parts.Next() {
		n := parts.Node()
		key = append(key, string(n.Data))
		k := keyJoin(key)
		if _, ok := ix.lines[k]; !ok {
			ix.lines[k] = p.Shape(n.Raw).Start.Line
		}
	}
	return key
}

// keyValue records a key/value pair under prefix and, if the value is an
// inline table, its keys.
func (ix *keyIndex) keyValue(p *unstable.Parser, prefix []string, kv *unstable.Node) {
	key := ix.key(p, prefix, kv.Key())
	if v := kv.Value(); v.Kind == unstable.InlineTable {
		for it := v.Children(); it.Next(); {
			if n := it.Node(); n.Kind == unstable.KeyValue {
				ix.keyValue(p, key, n)
			}
		}
	}
}
