package renn_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function may be, signature and closing
// brace included: about a screen and a half, so that a reader sees a whole
// function at once.
const maxFuncLines = 75

// TestFunctionLength fails listing every function of the module's non-test
// Go files (testdata excluded) longer than maxFuncLines.
func TestFunctionLength(t *testing.T) {
	long, err := longFunctions(".", maxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for _, f := range long {
		bad = append(bad, f.String())
	}
	if len(bad) > 0 {
		t.Errorf("%d functions longer than %d lines; split them:\n%s", len(bad), maxFuncLines, strings.Join(bad, "\n"))
	}
}

// longFunc is a function longer than the limit.
type longFunc struct {
	path  string // slash-separated, relative to the module root
	name  string // Name, or Recv.Name for a method
	lines int
}

func (f longFunc) id() string     { return f.path + ": " + f.name }
func (f longFunc) String() string { return fmt.Sprintf("%s: %d lines", f.id(), f.lines) }

// longFunctions returns the functions declared in the non-test Go files
// under root (skipping testdata and hidden directories) that are longer
// than max lines, longest first.
func longFunctions(root string, max int) ([]longFunc, error) {
	var long []longFunc
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		found, err := longInFile(path, max)
		long = append(long, found...)
		return err
	})
	slices.SortStableFunc(long, func(a, b longFunc) int { return b.lines - a.lines })
	return long, err
}

// longInFile returns the functions of the Go file at path longer than max
// lines.
func longInFile(path string, max int) ([]longFunc, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var long []longFunc
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		if n > max {
			long = append(long, longFunc{path: filepath.ToSlash(path), name: funcName(fn), lines: n})
		}
	}
	return long, nil
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
