package commitgraph

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata scripts")

// TestScripts runs the commit-graph scripts in testdata/. A script is a
// sequence of blocks separated by blank lines:
//
//	command arguments...
//	----
//	expected output
//
// Commits are named by labels; output shows labels instead of addresses.
// Commands:
//
//	init                          first commit "init" on main
//	commit <branch> <label> [merge parents...]
//	branch <name> <label> | delete-branch <name> | rename-branch <from> <to>
//	tag <name> <label> | branches
//	is-ancestor <a> <b> | merge-base <a> <b> | children <c> <head>
//	log <label> | resolve <spec> (a label may stand for the base)
//
// go test -run TestScripts -rewrite rewrites the expected outputs.
func TestScripts(t *testing.T) {
	for _, name := range []string{"testdata/graph.txt"} {
		stores(t, func(t *testing.T, cs chunks.Store) { runScript(t, cs, name) })
	}
}

type scriptEnv struct {
	db     *DB
	labels map[string]chunks.Address
	names  map[chunks.Address]string
	clock  int
}

func runScript(t *testing.T, cs chunks.Store, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := &scriptEnv{db: New(cs), labels: map[string]chunks.Address{}, names: map[chunks.Address]string{}}
	var out strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(string(data)), "\n\n") {
		cmd, want, found := strings.Cut(block, "\n----\n")
		if !found {
			cmd, want = strings.TrimSuffix(block, "\n----"), ""
		}
		got := env.run(t, strings.TrimSpace(cmd))
		if *rewrite {
			fmt.Fprintf(&out, "%s\n----\n%s\n\n", strings.TrimSpace(cmd), got)
			continue
		}
		if got != strings.TrimSpace(want) {
			t.Errorf("%s:\n%s\n got:\n%s\nwant:\n%s", path, cmd, got, want)
		}
	}
	if *rewrite && strings.HasSuffix(t.Name(), "memory") {
		if err := os.WriteFile(path, []byte(strings.TrimSpace(out.String())+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.db.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// label replaces addresses in s with their labels.
func (e *scriptEnv) label(s string) string {
	for a, n := range e.names {
		s = strings.ReplaceAll(s, a.String(), n)
	}
	return s
}

func (e *scriptEnv) addr(t *testing.T, label string) chunks.Address {
	a, ok := e.labels[label]
	if !ok {
		t.Fatalf("no commit labelled %q", label)
	}
	return a
}

func (e *scriptEnv) remember(label string, a chunks.Address) {
	e.labels[label] = a
	e.names[a] = label
}

func (e *scriptEnv) run(t *testing.T, line string) string {
	ctx := context.Background()
	var lines []string
	for _, l := range strings.Split(line, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines = append(lines, l)
		}
	}
	f := strings.Fields(strings.Join(lines, " "))
	if len(f) == 0 {
		return ""
	}
	e.clock++
	when := time.Date(2026, 1, 1, 0, 0, e.clock, 0, time.UTC)
	res := func(err error) string {
		if err != nil {
			return "error: " + e.label(err.Error())
		}
		return "ok"
	}
	switch f[0] {
	case "init":
		c, err := e.db.Init(ctx, "", Meta{Author: ada, Time: when, Message: "init"})
		if err == nil {
			e.remember("init", c.Addr)
		}
		return res(err)
	case "commit":
		head, err := e.db.Head(ctx, f[1])
		if err != nil {
			return res(err)
		}
		var merges []chunks.Address
		for _, m := range f[3:] {
			merges = append(merges, e.addr(t, m))
		}
		c, err := e.db.CommitRoot(ctx, CommitOptions{Branch: f[1], ExpectedHead: head, MergeParents: merges, Meta: Meta{Author: ada, Time: when, Message: f[2]}})
		if err != nil {
			return res(err)
		}
		e.remember(f[2], c.Addr)
		return fmt.Sprintf("%s height %d", f[2], c.Height)
	case "branch":
		return res(e.db.CreateBranch(ctx, f[1], e.addr(t, f[2])))
	case "delete-branch":
		return res(e.db.DeleteBranch(ctx, f[1]))
	case "rename-branch":
		return res(e.db.RenameBranch(ctx, f[1], f[2], false))
	case "tag":
		_, err := e.db.CreateTag(ctx, f[1], e.addr(t, f[2]), TagMeta{Tagger: ada, Time: when})
		return res(err)
	case "branches":
		bs, err := e.db.Branches(ctx)
		if err != nil {
			return res(err)
		}
		var s []string
		for _, b := range bs {
			s = append(s, b.Name+"="+e.names[b.Head])
		}
		return strings.Join(s, " ")
	case "is-ancestor":
		ok, err := e.db.IsAncestor(ctx, e.addr(t, f[1]), e.addr(t, f[2]))
		if err != nil {
			return res(err)
		}
		return fmt.Sprint(ok)
	case "merge-base":
		c, err := e.db.MergeBase(ctx, e.addr(t, f[1]), e.addr(t, f[2]))
		if err != nil {
			return res(err)
		}
		return e.names[c.Addr]
	case "children":
		cs, err := e.db.Children(ctx, e.addr(t, f[1]), e.addr(t, f[2]))
		if err != nil {
			return res(err)
		}
		var s []string
		for _, c := range cs {
			s = append(s, e.names[c.Addr])
		}
		return strings.Join(s, " ")
	case "log":
		var s []string
		it := e.db.Log(ctx, e.addr(t, f[1]))
		for it.Next(ctx) {
			s = append(s, e.names[it.Commit().Addr])
		}
		if err := it.Err(); err != nil {
			return res(err)
		}
		return strings.Join(s, " ")
	case "resolve":
		spec := f[1]
		base, _, _ := strings.Cut(strings.ReplaceAll(spec, "^", "~"), "~")
		if a, ok := e.labels[base]; ok {
			spec = a.String() + spec[len(base):]
		}
		c, err := e.db.Resolve(ctx, spec, "main")
		if err != nil {
			return res(err)
		}
		return e.names[c.Addr]
	}
	t.Fatalf("unknown command %q", f[0])
	return ""
}
