package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/verso-db/verso"
)

// dateLayout is how log prints a commit's time, in the local time zone.
const dateLayout = "Mon Jan 2 15:04:05 2006 -0700"

func runLog(dir string, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("log", cliContext{stdout: stdout, stderr: stderr})
	oneline := fs.Bool("oneline", false, "one line per commit: hash and the first line of the message")
	limit := fs.IntP("max-count", "n", -1, "print at most n commits")
	graph := fs.Bool("graph", false, "draw the commit graph, one line per commit")
	pos, code, ok := parseFlags(fs, args, 1)
	if !ok {
		return code
	}
	spec := "HEAD"
	if len(pos) == 1 {
		spec = pos[0]
	}
	db, err := openDB(dir, true)
	if err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.Resolve(ctx, spec, ""); err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	deco, err := decorations(ctx, db)
	if err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	var commits []*verso.Commit
	if *limit != 0 {
		commits, err = db.Log(ctx, spec, max(*limit, 0)) // <= 0: all
	}
	g := &graphWriter{w: stdout}
	for n, c := range commits {
		if *graph {
			g.commit(c, onelineText(c, deco[c.Addr]))
			continue
		}
		printCommit(stdout, c, deco[c.Addr], *oneline, n == 0)
	}
	if err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	return 0
}

// decorations names the branches and tags at each commit, as
// "HEAD -> main", "dev", "tag: v1".
func decorations(ctx context.Context, db *verso.DB) (map[verso.Hash][]string, error) {
	out := map[verso.Hash][]string{}
	branches, err := db.Branches(ctx)
	if err != nil {
		return nil, err
	}
	head := db.DefaultBranch()
	for _, b := range branches {
		name := b.Name
		if name == head {
			name = "HEAD -> " + name
			out[b.Head] = append([]string{name}, out[b.Head]...)
			continue
		}
		out[b.Head] = append(out[b.Head], name)
	}
	tags, err := db.Tags(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tags {
		out[t.Commit] = append(out[t.Commit], "tag: "+t.Name)
	}
	for a := range out {
		sort.SliceStable(out[a], func(i, j int) bool {
			return strings.HasPrefix(out[a][i], "HEAD") && !strings.HasPrefix(out[a][j], "HEAD")
		})
	}
	return out, nil
}

func printCommit(w io.Writer, c *verso.Commit, deco []string, oneline, first bool) {
	d := ""
	if len(deco) > 0 {
		d = " (" + strings.Join(deco, ", ") + ")"
	}
	if oneline {
		fmt.Fprintln(w, onelineText(c, deco))
		return
	}
	if !first {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "commit %s%s\n", c.Addr, d)
	if c.IsMerge() {
		ps := make([]string, len(c.Parents))
		for i, p := range c.Parents {
			ps[i] = p.String()
		}
		fmt.Fprintf(w, "Merge: %s\n", strings.Join(ps, " "))
	}
	fmt.Fprintf(w, "Author: %s <%s>\n", c.Meta.Author.Name, c.Meta.Author.Email)
	if cm := c.Meta.Committer; cm != (verso.Signature{}) {
		fmt.Fprintf(w, "Commit: %s <%s>\n", cm.Name, cm.Email)
	}
	fmt.Fprintf(w, "Date:   %s\n\n", c.Meta.Time.Local().Format(dateLayout))
	for _, line := range strings.Split(strings.TrimRight(c.Meta.Message, "\n"), "\n") {
		fmt.Fprintf(w, "    %s\n", line)
	}
}

// onelineText is a commit's line in log --oneline: hash, decorations and
// the first line of the message.
func onelineText(c *verso.Commit, deco []string) string {
	d := ""
	if len(deco) > 0 {
		d = " (" + strings.Join(deco, ", ") + ")"
	}
	subject, _, _ := strings.Cut(c.Meta.Message, "\n")
	return fmt.Sprintf("%s%s %s", c.Addr, d, subject)
}
