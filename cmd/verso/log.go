package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// dateLayout is how log prints a commit's time, in the local time zone.
const dateLayout = "Mon Jan 2 15:04:05 2006 -0700"

func runLog(dir string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("log", flag.ContinueOnError)
	fs.SetOutput(stderr)
	oneline := fs.Bool("oneline", false, "one line per commit: hash and the first line of the message")
	limit := fs.Int("n", -1, "print at most n commits")
	graph := fs.Bool("graph", false, "draw the commit graph, one line per commit")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 1 {
		fmt.Fprintln(stderr, "verso log: at most one revision")
		return 2
	}
	spec := "HEAD"
	if len(pos) == 1 {
		spec = pos[0]
	}
	r, err := findRepo(dir)
	if err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	defer r.Close()
	ctx := context.Background()
	start, err := r.db.Resolve(ctx, spec, r.branch)
	if err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	deco, err := decorations(ctx, r)
	if err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	it := r.db.Log(ctx, start.Addr)
	g := &graphWriter{w: stdout}
	for n := 0; (*limit < 0 || n < *limit) && it.Next(ctx); n++ {
		if *graph {
			g.commit(it.Commit(), onelineText(it.Commit(), deco[it.Commit().Addr]))
			continue
		}
		printCommit(stdout, it.Commit(), deco[it.Commit().Addr], *oneline, n == 0)
	}
	if err := it.Err(); err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	return 0
}

// decorations names the branches and tags at each commit, as
// "HEAD -> main", "dev", "tag: v1".
func decorations(ctx context.Context, r *repo) (map[chunks.Address][]string, error) {
	out := map[chunks.Address][]string{}
	branches, err := r.db.Branches(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range branches {
		name := b.Name
		if name == r.branch {
			name = "HEAD -> " + name
			out[b.Head] = append([]string{name}, out[b.Head]...)
			continue
		}
		out[b.Head] = append(out[b.Head], name)
	}
	tags, err := r.db.Tags(ctx)
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

func printCommit(w io.Writer, c *commitgraph.Commit, deco []string, oneline, first bool) {
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
	if cm := c.Meta.Committer; cm != (commitgraph.Signature{}) {
		fmt.Fprintf(w, "Commit: %s <%s>\n", cm.Name, cm.Email)
	}
	fmt.Fprintf(w, "Date:   %s\n\n", c.Meta.Time.Local().Format(dateLayout))
	for _, line := range strings.Split(strings.TrimRight(c.Meta.Message, "\n"), "\n") {
		fmt.Fprintf(w, "    %s\n", line)
	}
}

// onelineText is a commit's line in log --oneline: hash, decorations and
// the first line of the message.
func onelineText(c *commitgraph.Commit, deco []string) string {
	d := ""
	if len(deco) > 0 {
		d = " (" + strings.Join(deco, ", ") + ")"
	}
	subject, _, _ := strings.Cut(c.Meta.Message, "\n")
	return fmt.Sprintf("%s%s %s", c.Addr, d, subject)
}
