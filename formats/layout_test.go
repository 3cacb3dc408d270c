package formats

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/parquet/metadata"
)

// editFooter returns the Parquet file data with its footer changed by edit.
func editFooter(t *testing.T, data []byte, edit func(md *metadata.FileMetaData)) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	body := data[:len(data)-8-n]
	md, err := metadata.NewFileMetaData(data[len(body):len(data)-8], nil)
	if err != nil {
		t.Fatal(err)
	}
	edit(md)
	footer, err := md.Serialize(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := append(append([]byte{}, body...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// editPageHeader returns the Parquet file data with the i32 field at path
// (field ids: {2} is uncompressed_page_size, {7, 1} the dictionary's
// num_values) of the page header at byte pos set to v. The header changes
// length, so the footer's offsets after it and its chunk's size follow.
func editPageHeader(t *testing.T, data []byte, pos int64, path []int16, v int32) []byte {
	t.Helper()
	d := compactReader{b: data[pos:]}
	var start, end int
	var id int16
	for depth := 0; depth < len(path); {
		fid, ft, ok := d.field(id)
		if !ok {
			t.Fatalf("page header at byte %d has no field %v", pos, path)
		}
		id = fid
		switch {
		case fid == path[depth] && depth == len(path)-1 && ft == ctI32:
			start = d.i
			d.i32()
			end = d.i
			depth++
		case fid == path[depth] && ft == ctStruct:
			depth, id = depth+1, 0
		default:
			d.skip(ft, 0)
		}
		if d.err != nil {
			t.Fatal(d.err)
		}
	}
	enc := binary.AppendUvarint(nil, uint64(uint32(v<<1)^uint32(v>>31)))
	grow := int64(len(enc) - (end - start))
	at := pos + int64(start)
	out := append(append(append([]byte{}, data[:at]...), enc...), data[pos+int64(end):]...)
	return editFooter(t, out, func(md *metadata.FileMetaData) {
		for _, rg := range md.RowGroups {
			for _, c := range rg.Columns {
				m := c.MetaData
				first := m.DataPageOffset
				if m.DictionaryPageOffset != nil && *m.DictionaryPageOffset < first {
					first = *m.DictionaryPageOffset
				}
				switch {
				case first > pos:
					m.DataPageOffset += grow
					if m.DictionaryPageOffset != nil {
						*m.DictionaryPageOffset += grow
					}
				case first+m.TotalCompressedSize > pos:
					m.TotalCompressedSize += grow
					if m.DataPageOffset > pos {
						m.DataPageOffset += grow
					}
				}
			}
		}
	})
}

// regionsFile returns the bytes of a valid regions.parquet of n rows.
func regionsFile(t *testing.T, n int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), RegionsFile)
	if err := WriteRegions(path, genRegions(rand.New(rand.NewPCG(7, uint64(n))), n), testProv); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// chunk returns the first column chunk of the footer of data whose path
// begins with name.
func chunk(t *testing.T, data []byte, name string) (offset, size int64) {
	t.Helper()
	editFooter(t, data, func(md *metadata.FileMetaData) {
		for _, c := range md.RowGroups[0].Columns {
			if strings.HasPrefix(strings.Join(c.MetaData.PathInSchema, "."), name) {
				offset, size = c.MetaData.DataPageOffset, c.MetaData.TotalCompressedSize
				if c.MetaData.DictionaryPageOffset != nil {
					offset = min(offset, *c.MetaData.DictionaryPageOffset)
				}
				return
			}
		}
		t.Fatalf("no column %s", name)
	})
	return offset, size
}

// Files whose footer or page headers claim far more than they hold are
// rejected with an error naming the file and the claim, before the reader
// allocates by the claim: a read of a 2 KiB file allocates a few MiB at
// most. (Left to the Arrow reader, these claims make it allocate, zero and
// loop over up to gigabytes.)
func TestReadClaimsBeyondData(t *testing.T) {
	// Not parallel: it measures the allocations of the whole process.
	good := regionsFile(t, 3)
	first, firstSize := chunk(t, good, "model_id")
	scheme, _ := chunk(t, good, "scheme")
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"rows beyond the bound", editFooter(t, good, func(md *metadata.FileMetaData) { md.NumRows = 1 << 40 }),
			"footer claims 1099511627776 rows, outside [0, 268435456]: file damaged"},
		{"negative rows", editFooter(t, good, func(md *metadata.FileMetaData) { md.NumRows = -1 }),
			"footer claims -1 rows"},
		{"rows beyond the row groups", editFooter(t, good, func(md *metadata.FileMetaData) { md.NumRows = 1 << 27 }),
			"row groups hold 3 rows, the footer claims 134217728: file damaged"},
		{"row group rows", editFooter(t, good, func(md *metadata.FileMetaData) { md.RowGroups[0].NumRows = 1 << 40 }),
			"row group 0 claims 1099511627776 rows, more than the footer's 3 in all"},
		{"chunk size", editFooter(t, good, func(md *metadata.FileMetaData) { md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 31 }),
			`row group 0 column "model_id": claims 2147483648 bytes at byte 4, outside the data`},
		{"chunk offset", editFooter(t, good, func(md *metadata.FileMetaData) { md.RowGroups[0].Columns[0].MetaData.DataPageOffset = 1 << 40 }),
			`row group 0 column "model_id": claims ` + itoa(firstSize) + " bytes at byte 1099511627776, outside the data"},
		{"chunk values", editFooter(t, good, func(md *metadata.FileMetaData) { md.RowGroups[0].Columns[1].MetaData.NumValues = -7 }),
			`row group 0 column "region_id": claims -7 values`},
		{"page uncompressed size", editPageHeader(t, good, first, []int16{2}, 1<<30),
			`row group 0 column "model_id": page at byte 4 claims 1073741824 bytes uncompressed from`},
		{"page uncompressed size at the limit", editPageHeader(t, good, first, []int16{2}, 1<<31-1),
			`row group 0 column "model_id": page at byte 4 claims 2147483647 bytes uncompressed`},
		{"page stored size", editPageHeader(t, good, first, []int16{3}, 1<<30),
			`row group 0 column "model_id": page at byte 4 claims 1073741824 bytes, past the end of its column chunk`},
		{"negative page size", editPageHeader(t, good, first, []int16{2}, -5),
			`row group 0 column "model_id": page at byte 4 claims negative sizes`},
		{"dictionary values", editPageHeader(t, good, scheme, []int16{7, 1}, 1<<30),
			`row group 0 column "scheme": dictionary page at byte ` + itoa(scheme) + " claims 1073741824 values in"},
		{"header cut", editFooter(t, good, func(md *metadata.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 3
		}), `row group 0 column "model_id": page header at byte 4: page header cut short`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), RegionsFile)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err := ReadRegions(path)
			runtime.ReadMemStats(&after)
			want := "read " + path + ": " + tc.want
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error\n%v\nwant\n%s", err, want)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
				t.Errorf("the read allocated %d bytes", n)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A large table of equal values compresses far beyond maxPageRatio, and is
// read back all the same: the writer cuts pages of about 1 MiB, below
// pageFloor, even inside one row.
func TestReadCompressibleLargeRow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ModelsFile)
	rows := []FactorRow{{ModelID: 1, Vars: make([]int32, 22), LogTable: make([]float64, 1<<21)}}
	if err := WriteModels(path, rows, testProv); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadModels(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].LogTable) != 1<<21 {
		t.Errorf("read %d rows", len(got))
	}
}

// Every table reader checks the claims: a models, samples, estimates or
// marginals file (or any other table) whose first column chunk claims 2 GiB
// is rejected.
func TestReadersCheckClaims(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 3))
	for _, tc := range []struct {
		name  string
		write func(string) error
		read  func(string) error
	}{
		{ModelsFile, func(p string) error { return WriteModels(p, genFactors(rng, 3), testProv) },
			func(p string) error { _, _, err := ReadModels(p); return err }},
		{ModelInfoFile, func(p string) error { return WriteModelInfo(p, genModelInfo(rng, 3), testProv) },
			func(p string) error { _, _, err := ReadModelInfo(p); return err }},
		{SamplesFile, func(p string) error { return WriteSamples(p, genSamples(rng, 3), testProv) },
			func(p string) error { _, _, err := ReadSamples(p); return err }},
		{EstimatesFile, func(p string) error { return WriteEstimates(p, genEstimates(rng, 3), testProv) },
			func(p string) error { _, _, err := ReadEstimates(p); return err }},
		{MarginalsFile, func(p string) error { return WriteMarginals(p, genMarginals(rng, 3), testProv) },
			func(p string) error { _, _, err := ReadMarginals(p); return err }},
		{ScoresFile, func(p string) error { return WriteScores(p, genScores(rng, 3), testProv) },
			func(p string) error { _, _, err := ReadScores(p); return err }},
		{CurvesFile, func(p string) error { return WriteCurves(p, genCurves(rng, 3), testProv) },
			func(p string) error { _, _, err := ReadCurves(p); return err }},
		{SummaryFile, func(p string) error { return WriteSummary(p, []string{"graph"}, genSummary(rng, 3, 1), testProv) },
			func(p string) error { _, _, _, err := ReadSummary(p); return err }},
	} {
		path := filepath.Join(t.TempDir(), tc.name)
		if err := tc.write(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		bad := editFooter(t, data, func(md *metadata.FileMetaData) { md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 31 })
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		err = tc.read(path)
		if err == nil || !strings.HasPrefix(err.Error(), "read "+path+": row group 0 column ") || !strings.Contains(err.Error(), "claims 2147483648 bytes at byte 4, outside the data") {
			t.Errorf("%s: error %v", tc.name, err)
		}
	}
}

// A footer whose schema list claims 2^25 elements is rejected before the
// Thrift decoder allocates the list (256 MiB of pointers).
func TestReadFooterListClaim(t *testing.T) {
	// Not parallel: it measures the allocations of the whole process.
	good := regionsFile(t, 3)
	n := int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	body, footer := good[:len(good)-8-n], good[len(good)-8-n:len(good)-8]
	d := compactReader{b: footer}
	if id, typ, _ := d.field(0); id != 1 || typ != ctI32 {
		t.Fatalf("footer begins with field %d of type %d", id, typ)
	}
	d.i32()
	if id, typ, _ := d.field(1); id != 2 || typ != ctList {
		t.Fatalf("footer field %d of type %d, want the schema list", id, typ)
	}
	if footer[d.i] != 0xf0|ctStruct {
		t.Fatalf("schema list header %#x: want a long list of structs", footer[d.i])
	}
	start := d.i + 1
	d.i++
	d.uvarint()
	bad := append(append(append([]byte{}, footer[:start]...), binary.AppendUvarint(nil, 1<<25)...), footer[d.i:]...)
	data := binary.LittleEndian.AppendUint32(append(append([]byte{}, body...), bad...), uint32(len(bad)))
	data = append(data, "PAR1"...)
	path := filepath.Join(t.TempDir(), RegionsFile)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := ReadRegions(path)
	runtime.ReadMemStats(&after)
	want := "read " + path + ": footer of " + itoa(int64(len(bad))) + " bytes: a list or string in it claims more bytes than that: file damaged"
	if err == nil || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("the read allocated %d bytes", n)
	}
}
