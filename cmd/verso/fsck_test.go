package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
)

// TestFsck runs verso fsck on a clean database, then on one whose table
// file has a damaged commit chunk, then on one whose journal is damaged
// inside committed data.
func TestFsck(t *testing.T) {
	t.Setenv(envName, "Ada Lovelace")
	t.Setenv(envEmail, "ada@example.com")
	dir := t.TempDir()
	runOK(t, "init", dir)
	sqlIn(t, dir, "CREATE TABLE t (pk INT PRIMARY KEY, v INT, KEY (v))", "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)")
	runOK(t, "-C", dir, "commit", "-Am", "one")
	runOK(t, "-C", dir, "branch", "side")
	sqlIn(t, dir, "UPDATE t SET v = 4 WHERE pk = 1")
	runOK(t, "-C", dir, "commit", "-am", "two")

	out := runOK(t, "-C", dir, "fsck")
	if !regexp.MustCompile(`^checked 3 commits, \d+ tables, \d+ chunks: no problems\n$`).MatchString(out) {
		t.Fatalf("fsck of a clean database printed %q", out)
	}
	if out := runOK(t, "-C", dir, "fsck", "--quick"); !regexp.MustCompile(`^checked \d+ chunks: no problems\n$`).MatchString(out) {
		t.Fatalf("fsck --quick of a clean database printed %q", out)
	}
	runFail(t, 2, "-C", dir, "fsck", "extra")
	runFail(t, 2, "-C", dir, "fsck", "--nope")

	// A damaged users file (the database's own, for a server of it alone).
	users := filepath.Join(dir, ".verso", "users")
	if err := os.WriteFile(users, []byte("VERSOUSR garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-C", dir, "fsck"}, &stdout, &stderr); code != 1 || !strings.HasPrefix(stdout.String(), "users file: "+users+": ") || !strings.HasSuffix(stdout.String(), ": 1 problem\n") {
		t.Fatalf("fsck with a damaged users file: exit %d, stdout %q", code, stdout.String())
	}
	runOK(t, "-C", dir, "fsck", "--quick") // the chunks only
	if err := os.Remove(users); err != nil {
		t.Fatal(err)
	}

	// Compact, so that the head commit's chunk is in a table file, and
	// damage it there.
	ctx := context.Background()
	db, err := verso.Open(dir, verso.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Store().(*chunks.FileStore).Compact(); err != nil {
		t.Fatal(err)
	}
	head, err := db.Graph().HeadCommit(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	data, err := db.Store().Get(ctx, head.Addr)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	tablesGlob, _ := filepath.Glob(filepath.Join(dir, ".verso", "chunks", "*.table"))
	if len(tablesGlob) != 1 {
		t.Fatalf("table files: %v", tablesGlob)
	}
	path := tablesGlob[0]
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off := bytes.Index(file, data)
	if off < 0 {
		t.Fatal("the head commit's chunk is not stored uncompressed in the table file")
	}
	file[off+len(data)/2] ^= 0x5a
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}

	stdout.Reset()
	if code := run([]string{"-C", dir, "fsck"}, &stdout, &stderr); code != 1 {
		t.Fatalf("fsck of a damaged database: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	t.Logf("verso fsck:\n%s", stdout.String())
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if !regexp.MustCompile(`^checked \d+ commits, \d+ tables, \d+ chunks: \d+ problems$`).MatchString(lines[len(lines)-1]) {
		t.Fatalf("summary %q", lines[len(lines)-1])
	}
	var store, commit bool
	for _, l := range lines[:len(lines)-1] {
		store = store || strings.HasPrefix(l, "chunk store: table file "+path) && strings.Contains(l, head.Addr.String())
		commit = commit || strings.Contains(l, "branch main: head commit "+head.Addr.String())
	}
	if !store || !commit || stderr.Len() != 0 {
		t.Fatalf("fsck of a damaged database printed\n%s\nstderr %q", stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"-C", dir, "fsck", "--quick"}, &stdout, &stderr); code != 1 || !strings.HasSuffix(stdout.String(), ": 1 problem\n") {
		t.Fatalf("fsck --quick of a damaged database: exit %d, stdout %q", code, stdout.String())
	}

	// A damaged journal record that a commit follows: the store refuses
	// to open, and fsck says so.
	dir2 := t.TempDir()
	runOK(t, "init", dir2)
	sqlIn(t, dir2, "CREATE TABLE t (pk INT PRIMARY KEY)", "INSERT INTO t VALUES (1)")
	journals, _ := filepath.Glob(filepath.Join(dir2, ".verso", "chunks", "*.journal"))
	j, err := os.ReadFile(journals[0])
	if err != nil {
		t.Fatal(err)
	}
	j[len(bytes.TrimRight(j, "\x00"))/2] ^= 0x5a // inside the records, not the zeros kept after them
	if err := os.WriteFile(journals[0], j, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run([]string{"-C", dir2, "fsck"}, &stdout, &stderr); code != 1 || !strings.HasPrefix(stdout.String(), "open: ") || !strings.Contains(stdout.String(), journals[0]) {
		t.Fatalf("fsck of a damaged journal: exit %d, stdout %q", code, stdout.String())
	}
}

// TestGC runs verso gc on a database with garbage (a deleted branch's
// commits): it shrinks, checks clean and keeps main's history; its usage
// errors exit 2.
func TestGC(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "-C", dir, "init")
	runOK(t, "-C", dir, "sql", "-q", "CREATE TABLE t (id INT PRIMARY KEY, s TEXT); INSERT INTO t VALUES (1, 'a'); CALL dolt_commit('-Am', 'one')")
	runOK(t, "-C", dir, "branch", "scratch")
	runOK(t, "-C", dir, "checkout", "scratch")
	for i := 0; i < 20; i++ {
		runOK(t, "-C", dir, "sql", "-q", fmt.Sprintf("INSERT INTO t VALUES (%d, REPEAT('x', 3000)); CALL dolt_commit('-am', 'scratch %d')", 100+i, i))
	}
	runOK(t, "-C", dir, "checkout", "main")
	runOK(t, "-C", dir, "branch", "-D", "scratch")
	out := runOK(t, "-C", dir, "gc")
	m := regexp.MustCompile(`^collected: (.+) -> (.+), kept (\d+) of (\d+) chunks, in .+\n$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("verso gc printed %q", out)
	}
	if kept, all := atoi(t, m[3]), atoi(t, m[4]); kept >= all {
		t.Fatalf("verso gc kept %d of %d chunks", kept, all)
	}
	runOK(t, "-C", dir, "fsck")
	if out := runOK(t, "-C", dir, "sql", "-q", "SELECT COUNT(*) FROM dolt_log", "-r", "csv"); !strings.Contains(out, "\n2\n") {
		t.Fatalf("main's history after the collection: %q", out)
	}
	if out := runOK(t, "-C", dir, "gc", "--shallow"); !strings.HasPrefix(out, "compacted: ") {
		t.Fatalf("verso gc --shallow printed %q", out)
	}
	runFail(t, 2, "-C", dir, "gc", "extra")
	runFail(t, 2, "-C", dir, "gc", "--shallow", "--full")
	runFail(t, 2, "-C", dir, "gc", "--nope")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
