package formats

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
)

// Key/value metadata keys of the provenance.
const (
	keyStage   = "renn.stage"
	keyVersion = "renn.version"
	keyParams  = "renn.params"
	keySeed    = "renn.seed"
	keyInputs  = "renn.inputs"
)

// Provenance says which stage wrote a file, with which parameters and from
// which inputs. It is stored as key/value metadata of the Parquet file under
// the keys renn.stage, renn.version, renn.params, renn.seed (decimal) and
// renn.inputs (a JSON object).
type Provenance struct {
	Stage   string            // e.g. "exact-infer"
	Version string            // program version
	Params  string            // the stage's parameters as JSON
	Seed    int64             // the stage's seed
	Inputs  map[string]string // input file path -> sha256 hex
}

// metadata encodes p as Arrow schema metadata, which pqarrow copies into the
// Parquet key/value metadata.
func (p Provenance) metadata() (arrow.Metadata, error) {
	if p.Params != "" && !json.Valid([]byte(p.Params)) {
		return arrow.Metadata{}, fmt.Errorf("provenance params are not valid JSON: %q", p.Params)
	}
	inputs := p.Inputs
	if inputs == nil {
		inputs = map[string]string{} // "{}" rather than "null"
	}
	in, err := json.Marshal(inputs) // keys sorted: deterministic bytes
	if err != nil {
		return arrow.Metadata{}, fmt.Errorf("provenance inputs: %w", err)
	}
	return arrow.NewMetadata(
		[]string{keyStage, keyVersion, keyParams, keySeed, keyInputs},
		[]string{p.Stage, p.Version, p.Params, strconv.FormatInt(p.Seed, 10), string(in)},
	), nil
}

// provenanceOf decodes the provenance of an open Parquet file. Missing keys
// leave zero values, so files written by other tools can still be read;
// malformed values are errors.
func provenanceOf(r *file.Reader) (Provenance, error) {
	var p Provenance
	kv := r.MetaData().KeyValueMetadata()
	get := func(key string) (string, bool) {
		v := kv.FindValue(key)
		if v == nil {
			return "", false
		}
		return *v, true
	}
	p.Stage, _ = get(keyStage)
	p.Version, _ = get(keyVersion)
	p.Params, _ = get(keyParams)
	// The writer cannot store other bytes: they come back empty. (JSON
	// strings may hold them, so valid JSON params are checked too.)
	for _, kv := range [][2]string{{keyStage, p.Stage}, {keyVersion, p.Version}, {keyParams, p.Params}} {
		if !utf8.ValidString(kv[1]) {
			return Provenance{}, fmt.Errorf("metadata %s: not valid UTF-8: %q", kv[0], kv[1])
		}
	}
	if p.Params != "" && !json.Valid([]byte(p.Params)) {
		// The writer refuses such params, so a file carrying them could not
		// be written back.
		return Provenance{}, fmt.Errorf("metadata %s: not valid JSON: %q", keyParams, p.Params)
	}
	if s, ok := get(keySeed); ok {
		seed, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return Provenance{}, fmt.Errorf("metadata %s: want an integer, found %q", keySeed, s)
		}
		p.Seed = seed
	}
	if s, ok := get(keyInputs); ok {
		var in map[string]string
		if err := json.Unmarshal([]byte(s), &in); err != nil {
			return Provenance{}, fmt.Errorf("metadata %s: want a JSON object of strings: %w", keyInputs, err)
		}
		if len(in) > 0 {
			p.Inputs = in
		}
	}
	return p, nil
}

// ReadProvenance returns the provenance stored in the Parquet file at path
// without reading its rows.
func ReadProvenance(path string) (Provenance, error) {
	var p Provenance
	err := withParquet(path, memory.DefaultAllocator, func(r parquetFile) error {
		var err error
		p, err = provenanceOf(r.Reader)
		return err
	})
	if err != nil {
		return Provenance{}, fmt.Errorf("read %s: %w", path, err)
	}
	return p, nil
}

// FileSHA256 returns the lower-case hex sha256 of the file at path, as stored
// in Provenance.Inputs.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("sha256 %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("sha256 %s: %w", path, unwrapPath(err))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// unwrapPath drops the *fs.PathError wrapper, whose path the caller already
// names; errors.Is(err, fs.ErrNotExist) still holds on the result.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
