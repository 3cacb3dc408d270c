package formats

import (
	"errors"
	"fmt"
	"io"
)

// pageHeader holds what checkPages needs of a Parquet page header.
type pageHeader struct {
	size                     int   // bytes of the header itself
	uncompressed, compressed int32 // page sizes, header excluded
	values                   int32 // num_values of the data or dictionary page header
	levels                   int64 // v2 data pages: bytes of repetition and definition levels
	data, dictionary         bool  // the page type
}

// Parquet page types, from parquet.thrift.
const (
	dataPage       = 0
	dictionaryPage = 2
	dataPageV2     = 3
)

// errShortHeader means the header runs past the bytes read so far.
var errShortHeader = errors.New("page header cut short")

// readPageHeader reads the page header at byte pos of f, which must end
// before end, into a buffer grown from *buf as needed up to maxPageHeader.
func readPageHeader(f io.ReaderAt, pos, end int64, buf *[]byte) (pageHeader, error) {
	want := int64(max(cap(*buf), 4096))
	for {
		n := min(want, end-pos)
		if int64(cap(*buf)) < n {
			*buf = make([]byte, n)
		}
		b := (*buf)[:n]
		if _, err := f.ReadAt(b, pos); err != nil {
			return pageHeader{}, unwrapPath(err)
		}
		h, err := parsePageHeader(b)
		if !errors.Is(err, errShortHeader) || n == end-pos || n >= maxPageHeader {
			return h, err
		}
		want = min(2*n, maxPageHeader)
	}
}

// parsePageHeader decodes a PageHeader struct in Thrift's compact protocol
// from the start of b, keeping the fields checkPages needs and skipping the
// rest (statistics, crc, encodings).
func parsePageHeader(b []byte) (pageHeader, error) {
	d := compactReader{b: b}
	var h pageHeader
	var typ int32 = -1
	d.eachField(func(id int16, t byte) {
		switch {
		case id == 1 && t == ctI32:
			typ = d.i32()
		case id == 2 && t == ctI32:
			h.uncompressed = d.i32()
		case id == 3 && t == ctI32:
			h.compressed = d.i32()
		case (id == 5 || id == 7 || id == 8) && t == ctStruct:
			// data_page_header, dictionary_page_header, data_page_header_v2:
			// num_values is field 1 of each; v2 has the level lengths in
			// fields 5 and 6.
			d.eachField(func(sub int16, st byte) {
				switch {
				case sub == 1 && st == ctI32:
					h.values = d.i32()
				case id == 8 && (sub == 5 || sub == 6) && st == ctI32:
					h.levels += int64(d.i32())
				default:
					d.skip(st, 1)
				}
			})
		default:
			d.skip(t, 0)
		}
	})
	if d.err != nil {
		return pageHeader{}, d.err
	}
	if typ < 0 {
		return pageHeader{}, fmt.Errorf("no page type: %w", errDamaged)
	}
	h.size = d.i
	h.data = typ == dataPage || typ == dataPageV2
	h.dictionary = typ == dictionaryPage
	return h, nil
}

// Thrift compact protocol type codes.
const (
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
)

// maxNesting bounds the nesting of skipped values.
const maxNesting = 32

// compactReader decodes Thrift's compact protocol from b. The first error
// sticks; reads after it return zero.
type compactReader struct {
	b   []byte
	i   int
	err error
}

func (d *compactReader) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *compactReader) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.i >= len(d.b) {
		d.fail(errShortHeader)
		return 0
	}
	c := d.b[d.i]
	d.i++
	return c
}

func (d *compactReader) uvarint() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := d.byte()
		if d.err != nil {
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.fail(fmt.Errorf("varint longer than 10 bytes: %w", errDamaged))
	return 0
}

// i32 reads a zigzag varint that must fit 32 bits.
func (d *compactReader) i32() int32 {
	u := d.uvarint()
	if u > 0xffffffff {
		d.fail(fmt.Errorf("32-bit field holds %d: %w", u, errDamaged))
		return 0
	}
	return int32(uint32(u>>1) ^ -uint32(u&1))
}

// field reads a field header after the field last; ok is false at the
// struct's end (or on an error).
func (d *compactReader) field(last int16) (id int16, typ byte, ok bool) {
	c := d.byte()
	if d.err != nil || c == 0 {
		return 0, 0, false
	}
	typ = c & 0x0f
	if delta := int16(c >> 4); delta != 0 {
		return last + delta, typ, true
	}
	u := d.uvarint()
	return int16(uint16(u>>1) ^ -uint16(u&1)), typ, d.err == nil
}

// eachField calls fn with the id and type of every field of the struct at
// d, up to its end or an error; fn reads or skips the field's value.
func (d *compactReader) eachField(fn func(id int16, typ byte)) {
	var id int16
	for d.err == nil {
		fid, t, ok := d.field(id)
		if !ok {
			return
		}
		id = fid
		fn(fid, t)
	}
}

// skip skips a field's value of type typ at the given nesting depth.
func (d *compactReader) skip(typ byte, depth int) {
	d.skipValue(typ, depth, false)
}

// skipValue skips a value of type typ; inList says it is a list, set or
// map element, where a boolean takes a byte (in a field, none).
func (d *compactReader) skipValue(typ byte, depth int, inList bool) {
	if depth > maxNesting {
		d.fail(fmt.Errorf("values nested deeper than %d: %w", maxNesting, errDamaged))
		return
	}
	switch typ {
	case ctTrue, ctFalse:
		if inList {
			d.byte()
		}
	case ctByte:
		d.byte()
	case ctI16, ctI32, ctI64:
		d.uvarint()
	case ctDouble:
		d.bytes(8)
	case ctBinary:
		d.bytes(d.uvarint())
	case ctList, ctSet:
		c := d.byte()
		n := uint64(c >> 4)
		if n == 15 {
			n = d.uvarint()
		}
		d.elements(n, c&0x0f, depth)
	case ctMap:
		n := d.uvarint()
		if n == 0 {
			return
		}
		if n > uint64(len(d.b)-d.i) { // two bytes an entry at least
			d.fail(errShortHeader)
			return
		}
		kv := d.byte()
		for k := uint64(0); k < n && d.err == nil; k++ {
			d.skipValue(kv>>4, depth+1, true)
			d.skipValue(kv&0x0f, depth+1, true)
		}
	case ctStruct:
		d.eachField(func(_ int16, t byte) { d.skipValue(t, depth+1, false) })
	default:
		d.fail(fmt.Errorf("unknown Thrift type %d: %w", typ, errDamaged))
	}
}

// elements skips n list elements of type typ. Every element takes a byte at
// least, so a count beyond the bytes left is cut short at once.
func (d *compactReader) elements(n uint64, typ byte, depth int) {
	if n > uint64(len(d.b)-d.i) {
		d.fail(errShortHeader)
		return
	}
	for k := uint64(0); k < n && d.err == nil; k++ {
		d.skipValue(typ, depth+1, true)
	}
}

func (d *compactReader) bytes(n uint64) {
	if d.err != nil {
		return
	}
	if n > uint64(len(d.b)-d.i) {
		d.fail(errShortHeader)
		return
	}
	d.i += int(n)
}
