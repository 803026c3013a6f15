package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
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
	j[len(j)/2] ^= 0x5a
	if err := os.WriteFile(journals[0], j, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run([]string{"-C", dir2, "fsck"}, &stdout, &stderr); code != 1 || !strings.HasPrefix(stdout.String(), "open: ") || !strings.Contains(stdout.String(), journals[0]) {
		t.Fatalf("fsck of a damaged journal: exit %d, stdout %q", code, stdout.String())
	}
}
