// Package formats defines the files the stages exchange: the Parquet tables of
// the design and UAI model files. It knows nothing of algorithms.
//
// Every table has one row type (FactorRow, RegionRow, ...) and one Write/Read
// pair. Files are zstd-compressed Parquet, written atomically (temporary file
// in the same directory, fsync, rename), and carry the Provenance of the stage
// that wrote them as key/value metadata. Readers check the schema and report
// the file, the column and what was expected; extra columns are ignored so
// later versions can add columns. Row numbers in error messages count from 0.
package formats
