package formats

import (
	"errors"
	"strings"
	"testing"
)

// parsePageHeader on hand-written Thrift compact bytes: the fields it
// keeps, the values it skips, and what it rejects without reading far.
func TestParsePageHeader(t *testing.T) {
	t.Parallel()
	// Field 1 (type) i32 3, field 2 i32 100, field 3 i32 40, field 4 (crc)
	// i32, then data_page_header_v2 (field 8 = 4 after 4): num_values 7,
	// a bool (is_compressed), levels 5 and 6, statistics (struct with a
	// binary), stop, stop.
	v2 := []byte{0x15, 6, 0x15, 200, 1, 0x15, 80, 0x15, 2,
		0x4c, 0x15, 14, 0x15, 0, 0x15, 14, 0x15, 0, 0x15, 10, 0x15, 12, 0x11, 0x1c, 0x18, 2, 'a', 'b', 0, 0, 0}
	h, err := parsePageHeader(v2)
	if err != nil {
		t.Fatal(err)
	}
	want := pageHeader{size: len(v2), uncompressed: 100, compressed: 40, values: 7, levels: 11, data: true}
	if h != want {
		t.Errorf("v2 header %+v, want %+v", h, want)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"cut short", v2[:12], "page header cut short"},
		{"list longer than the bytes", []byte{0x15, 0, 0x19, 0xf5, 0xff, 0xff, 0xff, 0x0f}, "page header cut short"},
		{"string longer than the bytes", []byte{0x15, 0, 0x18, 0xff, 0xff, 0xff, 0x0f}, "page header cut short"},
		{"unknown type", []byte{0x15, 0, 0x1d, 0}, "unknown Thrift type 13"},
		{"varint too long", []byte{0x15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "varint longer than 10 bytes"},
		{"i32 too wide", []byte{0x15, 0xff, 0xff, 0xff, 0xff, 0x7f, 0}, "32-bit field holds"},
		{"nested too deep", append([]byte{0x15, 0}, strings.Repeat("\x1c", 40)...), "values nested deeper than 32"},
		{"no type", []byte{0x25, 4, 0}, "no page type"},
	} {
		_, err := parsePageHeader(tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if err != nil && !errors.Is(err, errShortHeader) && !errors.Is(err, errDamaged) {
			t.Errorf("%s: error %v is neither short nor damaged", tc.name, err)
		}
	}
}
