package formats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/metadata"
)

// Bounds on what a Parquet file may claim. The Arrow reader allocates what
// the footer and the page headers claim (a column chunk's stored size, a
// page's stored and uncompressed sizes) before it finds out whether the
// data is there, so a damaged file claiming gigabytes made a read take
// seconds and as much memory; checkLayout holds every claim to these bounds
// and to the file's actual size first.
const (
	// maxTableRows bounds the rows of a table: 2^28, mrf.MaxFactors, as
	// no table of the toolchain has more rows than a model has factors,
	// times a few methods (far more than memory holds).
	maxTableRows = 1 << 28
	// pageFloor is the uncompressed size any page may claim: 8 times the
	// 1 MiB data and dictionary page size of the Arrow, pyarrow and
	// parquet-mr writers, which cut pages at about that size.
	pageFloor = 8 << 20
	// maxPageRatio bounds the claimed uncompressed size of a larger page
	// by its stored size: zstd, gzip and snappy compress real table data
	// (floats, ids, repeated strings) far less than 1024:1, and pages above
	// pageFloor come only from writers with a raised page size.
	maxPageRatio = 1024
	// maxPageBytes bounds any page's uncompressed size: 1 GiB.
	maxPageBytes = 1 << 30
	// maxPageHeader is the largest page header read, as the Arrow reader's
	// (4 MiB; statistics of long strings make headers long).
	maxPageHeader = 4 << 20
)

// errDamaged ends the errors of checkLayout: what the file claims is not
// there.
var errDamaged = errors.New("file damaged")

// checkLayout checks what the footer of r, read from f of size bytes,
// claims: row counts within maxTableRows and adding up, every column chunk
// inside the file's data, and every page header of every chunk (see
// checkPages). It reads only the page headers.
func checkLayout(r *file.Reader, f io.ReaderAt, size int64) error {
	md := r.MetaData()
	total := r.NumRows()
	if total < 0 || total > maxTableRows {
		return fmt.Errorf("footer claims %d rows, outside [0, %d]: %w", total, maxTableRows, errDamaged)
	}
	// The data lies between the magic "PAR1" and the footer, which is
	// followed by its 4-byte length and "PAR1".
	dataEnd := size - int64(md.Size()) - 8
	var sum int64
	for g := 0; g < r.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		n := rg.NumRows()
		if n < 0 || n > total-sum {
			return fmt.Errorf("row group %d claims %d rows, more than the footer's %d in all: %w", g, n, total, errDamaged)
		}
		sum += n
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				return fmt.Errorf("row group %d column %d: %w", g, c, err)
			}
			if err := checkChunk(f, md, cc, size, dataEnd); err != nil {
				return fmt.Errorf("row group %d column %q: %w", g, cc.PathInSchema().String(), err)
			}
		}
	}
	if sum != total {
		return fmt.Errorf("row groups hold %d rows, the footer claims %d: %w", sum, total, errDamaged)
	}
	return nil
}

// checkChunk checks that the column chunk cc lies inside the file's data,
// which ends at dataEnd in a file of size bytes, and checks its pages.
func checkChunk(f io.ReaderAt, md *metadata.FileMetaData, cc *metadata.ColumnChunkMetaData, size, dataEnd int64) error {
	// Where the Arrow reader starts: the dictionary page if it comes first.
	start := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
		start = cc.DictionaryPageOffset()
	}
	n := cc.TotalCompressedSize()
	switch {
	case cc.NumValues() < 0:
		return fmt.Errorf("claims %d values: %w", cc.NumValues(), errDamaged)
	case cc.NumValues() == 0 && start >= 0 && n >= 0 && start <= size && n <= size-start:
		// Writers give an empty chunk offset 0; the Arrow reader still
		// reads its bytes, which are in the file.
		return nil
	case start < 4 || n < 0 || start > dataEnd || n > dataEnd-start:
		return fmt.Errorf("claims %d bytes at byte %d, outside the data (bytes 4 to %d): %w", n, start, dataEnd, errDamaged)
	}
	end := start + n
	if md.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		// Old parquet-mr left the dictionary page header out of the
		// chunk size; the Arrow reader reads up to 100 bytes more, so may
		// the pages.
		end = min(end+100, dataEnd)
	}
	return checkPages(f, start, end, cc.NumValues())
}

// checkPages reads the page headers of a column chunk stored in bytes
// [start, end) of f, up to the page that completes its values (where the
// Arrow reader stops), and checks every page's claims before the Arrow
// reader allocates by them: the stored bytes lie inside the chunk; the
// uncompressed size is at most pageFloor, or maxPageRatio times the stored
// size, and never above maxPageBytes; a dictionary holds no more values
// than its bits.
func checkPages(f io.ReaderAt, start, end, values int64) error {
	var seen int64
	buf := make([]byte, 0, 4096)
	for pos := start; pos < end && seen < values; {
		h, err := readPageHeader(f, pos, end, &buf)
		if err != nil {
			return fmt.Errorf("page header at byte %d: %w", pos, err)
		}
		stored, unc := int64(h.compressed), int64(h.uncompressed)
		switch {
		case stored < 0 || unc < 0 || h.values < 0:
			return fmt.Errorf("page at byte %d claims negative sizes (%d stored, %d uncompressed, %d values): %w", pos, stored, unc, h.values, errDamaged)
		case stored > end-pos-int64(h.size):
			return fmt.Errorf("page at byte %d claims %d bytes, past the end of its column chunk at byte %d: %w", pos, stored, end, errDamaged)
		case unc > maxPageBytes || unc > max(pageFloor, maxPageRatio*stored):
			return fmt.Errorf("page at byte %d claims %d bytes uncompressed from %d stored (at most %d, or %d times the stored size up to %d): %w",
				pos, unc, stored, pageFloor, maxPageRatio, maxPageBytes, errDamaged)
		case h.dictionary && int64(h.values) > 8*unc:
			return fmt.Errorf("dictionary page at byte %d claims %d values in %d bytes: %w", pos, h.values, unc, errDamaged)
		case h.levels < 0 || h.levels > min(stored, unc):
			return fmt.Errorf("page at byte %d claims %d bytes of levels in a page of %d: %w", pos, h.levels, min(stored, unc), errDamaged)
		}
		if h.data {
			seen += int64(h.values)
		}
		pos += int64(h.size) + stored
	}
	return nil
}

// checkFooter checks the sizes that the footer of the Parquet file f, of
// size bytes, claims for its lists, maps and strings against the bytes the
// footer has: the Thrift decoder allocates a list by its claimed length (up
// to 100 million entries) before it reads one. A footer that is not
// Thrift at all is left to the Parquet reader, which reports it.
func checkFooter(f io.ReaderAt, size int64) error {
	if size < 12 {
		return nil
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if string(tail[4:]) != "PAR1" || n > size-12 {
		return nil
	}
	footer := make([]byte, n)
	if _, err := f.ReadAt(footer, size-8-n); err != nil {
		return nil
	}
	d := compactReader{b: footer}
	d.skip(ctStruct, 0)
	if errors.Is(d.err, errShortHeader) {
		return fmt.Errorf("footer of %d bytes: a list or string in it claims more bytes than that: %w", n, errDamaged)
	}
	return nil
}
