package verso

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/verso-db/verso"

// enginePackages are the engine and the layers under it: none may depend
// on the SQL engine or its parser, so a Go program embedding the engine
// links neither.
var enginePackages = []string{".", "./chunks", "./prolly", "./closure", "./commitgraph", "./tables", "./tablemerge", "./eventindex"}

// TestEngineImportsNoSQL fails if the engine or a package under it
// depends (directly or not) on go-mysql-server or vitess.
func TestEngineImportsNoSQL(t *testing.T) {
	args := append([]string{"list", "-deps"}, enginePackages...)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/dolthub/go-mysql-server") || strings.HasPrefix(dep, "github.com/dolthub/vitess") {
			t.Errorf("the engine depends on %s: an embedding program would link the SQL engine (go list -deps %s shows the path)", dep, strings.Join(enginePackages, " "))
		}
	}
}

// TestLayerOrder reads the README's layout table and fails if a package
// imports one listed at or below its own row, or is missing from the
// table. Packages of internal/ are helpers any layer may use.
func TestLayerOrder(t *testing.T) {
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile("^\\| `([^`]+)`")
	rank := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := row.FindStringSubmatch(sc.Text()); m != nil {
			p := strings.TrimSuffix(m[1], "/")
			if p == "." {
				p = ""
			}
			rank[p] = len(rank)
		}
	}
	if len(rank) == 0 {
		t.Fatal("no layout table in README.md")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	rel := func(p string) (string, bool) {
		if p == module {
			return "", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		p, _ := rel(pkg)
		if strings.HasPrefix(p, "internal/") {
			continue
		}
		r, ok := rank[p]
		if !ok {
			t.Errorf("package %q is not in README.md's layout table; add its row where its layer is", pkg)
			continue
		}
		for _, imp := range strings.Fields(imports) {
			q, ok := rel(imp)
			if !ok || strings.HasPrefix(q, "internal/") {
				continue
			}
			if qr, ok := rank[q]; !ok || qr >= r {
				t.Errorf("%s imports %s, which the README's layout table lists at or below it", pkg, imp)
			}
		}
	}
}
