package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// initAllowed is the folder (relative to the module root, slash-separated)
// whose files may declare init functions that only register a
// database/sql driver.
const initAllowed = "driver/"

// moduleRoot returns the folder of the module's go.mod, above the test's
// working folder.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// sourceFiles returns the module's non-test Go files, relative to root
// and slash-separated: testdata, hidden folders and nested modules are
// left out.
func sourceFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// initViolations returns the init functions of the file named name (its
// path in the module) with source src that break the rule, as
// "file:line" strings.
func initViolations(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "init" {
			continue
		}
		if strings.HasPrefix(name, initAllowed) && onlyRegistersDriver(f, fn) {
			continue
		}
		out = append(out, fset.Position(fn.Pos()).String())
	}
	return out, nil
}

// onlyRegistersDriver reports whether fn's body is nothing but calls of
// database/sql's Register.
func onlyRegistersDriver(f *ast.File, fn *ast.FuncDecl) bool {
	pkg := ""
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && p == "database/sql" {
			pkg = "sql"
			if imp.Name != nil {
				pkg = imp.Name.Name
			}
		}
	}
	if pkg == "" || fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	for _, st := range fn.Body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			return false
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Register" {
			return false
		}
		if id, ok := sel.X.(*ast.Ident); !ok || id.Name != pkg {
			return false
		}
	}
	return true
}

// TestNoInitFunctions fails for every func init() in a non-test file of
// the module, other than a database/sql driver's registration in driver/:
// package state is not filled at load time (see the package doc).
func TestNoInitFunctions(t *testing.T) {
	root := moduleRoot(t)
	files := sourceFiles(t, root)
	if len(files) < 50 {
		t.Fatalf("found only %d source files under %s", len(files), root)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		bad, err := initViolations(fset, name, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range bad {
			t.Errorf("%s: func init(): declare a static table and pass it in (a provider, options) instead; only %s may register a database/sql driver in init", at, initAllowed)
		}
	}
}

// TestInitViolations checks the checker on small files: an init anywhere
// is found, and a driver's registration in driver/ is allowed, only if it
// is all the init does.
func TestInitViolations(t *testing.T) {
	for _, c := range []struct {
		name, src string
		bad       int
	}{
		{"sqlserver/x.go", "package x\nfunc init() { register(1) }\n", 1},
		{"x.go", "package x\nfunc init() {}\nfunc init() {}\n", 2},
		{"sqlserver/x.go", "package x\ntype T struct{}\nfunc (T) init() {}\nfunc initAll() {}\n", 0},
		{"driver/driver.go", "package driver\nimport \"database/sql\"\nfunc init() { sql.Register(\"verso\", d{}) }\n", 0},
		{"driver/driver.go", "package driver\nimport dsql \"database/sql\"\nfunc init() { dsql.Register(\"verso\", d{}) }\n", 0},
		{"driver/driver.go", "package driver\nimport \"database/sql\"\nfunc init() { sql.Register(\"verso\", d{}); cache = map[int]int{} }\n", 1},
		{"driver/driver.go", "package driver\nfunc init() { sql.Register(\"verso\", d{}) }\n", 1}, // not database/sql's
		{"sqlserver/driver.go", "package x\nimport \"database/sql\"\nfunc init() { sql.Register(\"verso\", d{}) }\n", 1},
	} {
		bad, err := initViolations(token.NewFileSet(), c.name, c.src)
		if err != nil {
			t.Fatal(err)
		}
		if len(bad) != c.bad {
			t.Errorf("%s %q: %d violations %v, want %d", c.name, c.src, len(bad), bad, c.bad)
		}
	}
}
