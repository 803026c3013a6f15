package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

// TestRun runs the program twice on one folder: the second run reopens the
// database and finds the first one's commit.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	for range 2 {
		out.Reset()
		if err := run(context.Background(), dir, &out); err != nil {
			t.Fatal(err)
		}
	}
	want := "visit 2\nvisit 1\nInitialize data repository\nSQL: 2 visits, 3 commits\n"
	if out.String() != want {
		t.Fatalf("log:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestImportsOnlyTheEngine: a program embedding verso needs nothing of it
// but the root package (and the database/sql driver).
func TestImportsOnlyTheEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, "github.com/verso-db/verso") && imp != "github.com/verso-db/verso" && imp != "github.com/verso-db/verso/driver" {
			t.Errorf("the program imports %s; the root package should give what it needs", imp)
		}
	}
}
