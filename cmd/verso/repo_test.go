package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, &out, &errOut); code != 0 {
		t.Fatalf("verso %v: exit %d, stderr %q", args, code, errOut.String())
	}
	return out.String()
}

func runFail(t *testing.T, want int, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, &out, &errOut); code != want {
		t.Fatalf("verso %v: exit %d, want %d; stdout %q stderr %q", args, code, want, out.String(), errOut.String())
	}
	return errOut.String()
}

func TestInitAndLog(t *testing.T) {
	t.Setenv(envName, "Ada Lovelace")
	t.Setenv(envEmail, "ada@example.com")
	dir := t.TempDir()
	out := runOK(t, "init", dir)
	if !strings.Contains(out, "Initialized empty verso database in "+filepath.Join(dir, ".verso")) {
		t.Fatalf("init said %q", out)
	}
	if msg := runFail(t, 1, "init", dir); !strings.Contains(msg, "already holds a database") {
		t.Fatalf("second init said %q", msg)
	}
	log := runOK(t, "-C", dir, "log")
	re := regexp.MustCompile(`^commit [0-9a-v]{32} \(HEAD -> main\)\nAuthor: Ada Lovelace <ada@example.com>\nDate:   \w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4} [-+]\d{4}\n\n    Initialize data repository\n$`)
	if !re.MatchString(log) {
		t.Fatalf("log printed\n%s", log)
	}
	// A subfolder finds the database of its parent.
	if sub := runOK(t, "-C", filepath.Join(dir, ".verso"), "log", "--oneline"); !strings.HasSuffix(sub, " (HEAD -> main) Initialize data repository\n") {
		t.Fatalf("log --oneline from a subfolder printed %q", sub)
	}

	// Add history through the library: three commits, a branch, a merge
	// and a tag.
	db, err := verso.Open(dir, verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := db.Graph()
	ctx := context.Background()
	head, err := g.Head(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	base := head
	when := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for i := 1; i <= 3; i++ {
		c, err := g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "main", ExpectedHead: head, Root: chunks.Address{}, Meta: commitgraph.Meta{Author: commitgraph.Signature{Name: "Bob", Email: "bob@example.com"}, Time: when.Add(time.Duration(i) * time.Minute), Message: fmt.Sprintf("commit %d\n\nbody %d", i, i)}})
		if err != nil {
			t.Fatal(err)
		}
		head = c.Addr
	}
	if err := g.CreateBranch(ctx, "dev", base); err != nil {
		t.Fatal(err)
	}
	dev, err := g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "dev", ExpectedHead: base, Meta: commitgraph.Meta{Author: commitgraph.Signature{Name: "Cy", Email: "cy@example.com"}, Time: when, Message: "on dev"}})
	if err != nil {
		t.Fatal(err)
	}
	merge, err := g.CommitRoot(ctx, commitgraph.CommitOptions{Branch: "main", ExpectedHead: head, MergeParents: []chunks.Address{dev.Addr}, Meta: commitgraph.Meta{Author: commitgraph.Signature{Name: "Bob", Email: "bob@example.com"}, Time: when.Add(time.Hour), Message: "merge dev"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateTag(ctx, "v1", head, commitgraph.TagMeta{Message: "v1"}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	one := runOK(t, "-C", dir, "log", "--oneline")
	lines := strings.Split(strings.TrimSpace(one), "\n")
	wantSubjects := []string{"(HEAD -> main) merge dev", "(tag: v1) commit 3", "commit 2", "commit 1", "(dev) on dev", "Initialize data repository"}
	if len(lines) != len(wantSubjects) {
		t.Fatalf("log --oneline printed\n%s", one)
	}
	for i, l := range lines {
		if !strings.HasSuffix(l, " "+wantSubjects[i]) {
			t.Fatalf("line %d is %q, want it to end with %q\n%s", i, l, wantSubjects[i], one)
		}
	}
	if !strings.HasPrefix(lines[0], merge.Addr.String()) {
		t.Fatalf("first line %q is not the merge %s", lines[0], merge.Addr)
	}
	full := runOK(t, "-C", dir, "log", "-n", "2")
	if !strings.Contains(full, "Merge: "+head.String()+" "+dev.Addr.String()+"\n") || strings.Count(full, "commit ") != 3 || !strings.Contains(full, "    commit 3\n    \n    body 3\n") {
		t.Fatalf("log -n 2 printed\n%s", full)
	}
	if got := runOK(t, "-C", dir, "log", "--oneline", "main~1", "-n", "1"); !strings.HasPrefix(got, head.String()) {
		t.Fatalf("log main~1 printed %q", got)
	}
	if got := runOK(t, "-C", dir, "log", "--oneline", "HEAD^2"); !strings.HasPrefix(got, dev.Addr.String()) || strings.Count(got, "\n") != 2 {
		t.Fatalf("log HEAD^2 printed %q", got)
	}
	if msg := runFail(t, 1, "-C", dir, "log", "main~9"); !strings.Contains(msg, "is the root commit") {
		t.Fatalf("log main~9 said %q", msg)
	}
	if msg := runFail(t, 1, "-C", dir, "log", "nope"); !strings.Contains(msg, `"nope": no branch or tag`) {
		t.Fatalf("log nope said %q", msg)
	}
	if msg := runFail(t, 1, "-C", t.TempDir(), "log"); !strings.Contains(msg, "no verso database") {
		t.Fatalf("log outside a database said %q", msg)
	}
	runFail(t, 2, "-C", dir, "log", "-x")
}

func TestInitFlags(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "-C", dir, "init", "--branch", "trunk", "--name", "Eve", "--email", "eve@example.com")
	log := runOK(t, "-C", dir, "log")
	if !strings.Contains(log, "(HEAD -> trunk)") || !strings.Contains(log, "Author: Eve <eve@example.com>") {
		t.Fatalf("log printed\n%s", log)
	}
	if msg := runFail(t, 1, "init", "--branch", "a b", t.TempDir()); !strings.Contains(msg, "bad ref name") {
		t.Fatalf("init with a bad branch said %q", msg)
	}
}
