package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
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
	merges := fs.Bool("merges", false, "only merge commits (the same as --min-parents 2)")
	minParents := fs.Int("min-parents", 0, "only commits with at least this many parents")
	authorPat := fs.String("author", "", "only commits whose author's name or email matches this regular expression")
	decorate := fs.String("decorate", "short", "branch and tag names beside commits: short, full (refs/heads/..., refs/tags/...) or no")
	stat := fs.Bool("stat", false, "after each commit, the tables it changed against its first parent, with their counts of rows")
	pos, code, ok := parseFlags(fs, args, 1)
	if !ok {
		return code
	}
	if *merges {
		*minParents = max(*minParents, 2)
	}
	var authorRE *regexp.Regexp
	if *authorPat != "" {
		var err error
		if authorRE, err = regexp.Compile(*authorPat); err != nil {
			fmt.Fprintf(stderr, "verso log: --author: %v\n", err)
			return 2
		}
	}
	switch *decorate {
	case "short", "full", "no", "auto":
	default:
		fmt.Fprintf(stderr, "verso log: --decorate is %q; give short, full or no\n", *decorate)
		return 2
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
	deco, err := decorations(ctx, db, *decorate)
	if err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	filtered := *minParents > 0 || authorRE != nil
	var commits []*verso.Commit
	if *limit != 0 {
		n := max(*limit, 0) // <= 0: all
		if filtered {
			n = 0 // the filter picks from all of them
		}
		commits, err = db.Log(ctx, spec, n)
	}
	g := &graphWriter{w: stdout}
	shown := 0
	for _, c := range commits {
		if len(c.Parents) < *minParents || authorRE != nil && !authorRE.MatchString(c.Meta.Author.Name) && !authorRE.MatchString(c.Meta.Author.Email) {
			continue
		}
		if *limit > 0 && shown == *limit {
			break
		}
		if *graph {
			g.commit(c, onelineText(c, deco[c.Addr]))
		} else {
			printCommit(stdout, c, deco[c.Addr], *oneline, shown == 0)
		}
		shown++
		if *stat && len(c.Parents) > 0 {
			if serr := commitStat(ctx, db, stdout, c); serr != nil {
				fmt.Fprintf(stderr, "verso log: %v\n", serr)
				return 1
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "verso log: %v\n", err)
		return 1
	}
	return 0
}

// commitStat prints the tables commit c changed against its first
// parent, as diff --stat does.
func commitStat(ctx context.Context, db *verso.DB, w io.Writer, c *verso.Commit) error {
	txn, err := db.Begin(ctx, "")
	if err != nil {
		return err
	}
	defer txn.Rollback()
	from, err := txn.RootOf(ctx, c.Parents[0].String())
	if err != nil {
		return err
	}
	to, err := txn.RootOf(ctx, c.Addr.String())
	if err != nil {
		return err
	}
	changes, err := verso.ChangedTables(ctx, from, to)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, ch := range changes {
		if err := printDiffStat(ctx, db, w, from, to, ch); err != nil {
			return err
		}
	}
	return nil
}

// decorations names the branches and tags at each commit, as
// "HEAD -> main", "dev", "tag: v1" (style short), "HEAD ->
// refs/heads/main", "refs/tags/v1" (full), or none (no).
func decorations(ctx context.Context, db *verso.DB, style string) (map[verso.Hash][]string, error) {
	out := map[verso.Hash][]string{}
	if style == "no" {
		return out, nil
	}
	branchPrefix, tagPrefix := "", "tag: "
	if style == "full" {
		branchPrefix, tagPrefix = "refs/heads/", "tag: refs/tags/"
	}
	branches, err := db.Branches(ctx)
	if err != nil {
		return nil, err
	}
	head := db.DefaultBranch()
	for _, b := range branches {
		name := branchPrefix + b.Name
		if b.Name == head {
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
		out[t.Commit] = append(out[t.Commit], tagPrefix+t.Name)
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
