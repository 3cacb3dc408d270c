module github.com/renn-go/renn

go 1.26

require (
	github.com/BurntSushi/toml v1.5.0 // indirect
	github.com/alecthomas/kong v1.12.1 // indirect
	github.com/apache/arrow/go/v15 v15.0.2 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
