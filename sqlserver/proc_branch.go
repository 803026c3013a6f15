package sqlserver

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// dolt_branch, dolt_checkout, dolt_tag and dolt_reset.
//
//	CALL dolt_branch('new' [, 'start'])          create at HEAD or start
//	CALL dolt_branch('-f', 'b', 'start')         move b to start
//	CALL dolt_branch('-c' [, '-f'], 'from', 'to') copy (head and working set)
//	CALL dolt_branch('-m' [, '-f'], 'from', 'to') rename
//	CALL dolt_branch('-d' [, '-f'], 'b', ...)    delete (-d: only if merged
//	                                             into HEAD; -D = -d -f)
//	CALL dolt_checkout('b')                       switch the session's branch
//	CALL dolt_checkout('-b', 'new' [, 'start'])  create and switch
//	CALL dolt_checkout('t1', 't2')               discard working changes
//	CALL dolt_checkout('ref', '--', 't1', ...)   tables as ref has them
//	CALL dolt_tag('name' [, 'ref'] [, '-m', msg]), dolt_tag('-d', 'name')
//	CALL dolt_reset([--soft | --hard] [ref]), dolt_reset('t1', ...)
//
// Each returns status 0 (dolt_checkout also a message) or an error.

// branchProcedures are the procedures of branches, tags and resets.
var branchProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_branch", Schema: statusSchema, Function: doltBranch},
	{Name: "dolt_checkout", Schema: checkoutSchema, Function: doltCheckout},
	{Name: "dolt_tag", Schema: statusSchema, Function: doltTag},
	{Name: "dolt_reset", Schema: statusSchema, Function: doltReset},
}

var checkoutSchema = sql.Schema{
	{Name: "status", Type: types.Int64, Nullable: false},
	{Name: "message", Type: types.LongText, Nullable: true},
}

var branchSpec = optSpec{
	proc:   "dolt_branch",
	opts:   map[string]bool{"copy": false, "move": false, "delete": false, "D": false, "force": false},
	shorts: map[byte]string{'c': "copy", 'm': "move", 'd': "delete", 'D': "D", 'f': "force"},
}

func doltBranch(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := branchSpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	g := db.st.graph
	force := a.has("force")
	modes := 0
	for _, m := range []string{"copy", "move", "delete", "D"} {
		if a.has(m) {
			modes++
		}
	}
	if modes > 1 && !(modes == 2 && a.has("delete") && a.has("D")) {
		return nil, errors.New("dolt_branch: give one of -c, -m and -d")
	}
	switch {
	case a.has("delete") || a.has("D"):
		if len(a.pos) == 0 {
			return nil, errors.New("dolt_branch -d: name the branches to delete")
		}
		current := db.branch
		for _, b := range a.pos {
			if err := deleteBranch(ctx, db, b, current, force || a.has("D")); err != nil {
				return nil, err
			}
		}
	case a.has("copy"), a.has("move"):
		verb := map[bool]string{true: "-c", false: "-m"}[a.has("copy")]
		if len(a.pos) != 2 {
			return nil, fmt.Errorf("dolt_branch %s: give the branch and its new name ('%s', 'from', 'to')", verb, verb)
		}
		from, to := a.pos[0], a.pos[1]
		head, ws, err := g.BranchState(ctx, from)
		if err != nil {
			return nil, branchError("dolt_branch", from, err)
		}
		if err := g.SetBranch(ctx, to, head.Addr, &ws, force); err != nil {
			return nil, branchError("dolt_branch", to, err)
		}
		if a.has("move") && from != to {
			if from == db.st.branch {
				return nil, fmt.Errorf("dolt_branch -m: %q is the default branch of database %s (.verso/HEAD) and cannot be renamed; copy it with -c instead", from, db.st.name)
			}
			if err := g.DeleteBranch(ctx, from); err != nil {
				return nil, err
			}
			if db.branch == from {
				setSessionBranch(ctx, db.st, to)
			}
		}
	default:
		if len(a.pos) == 0 || len(a.pos) > 2 {
			return nil, errors.New("dolt_branch: give a branch name and an optional start point; list the branches with SELECT * FROM dolt_branches")
		}
		name := a.pos[0]
		start := "HEAD"
		if len(a.pos) == 2 {
			start = a.pos[1]
		}
		if force && name == db.branch {
			return nil, fmt.Errorf("dolt_branch -f: %q is the session's checked-out branch; reset it with dolt_reset('--hard', '%s') instead", name, start)
		}
		c, err := g.Resolve(ctx, start, db.branch)
		if err != nil {
			return nil, fmt.Errorf("dolt_branch: start point %q: %w", start, err)
		}
		if err := g.SetBranch(ctx, name, c.Addr, nil, force); err != nil {
			return nil, branchError("dolt_branch", name, err)
		}
	}
	return statusRow(0), nil
}

// deleteBranch deletes b, refusing the session's branch, the database's
// default branch and (without force) a branch not merged into current.
func deleteBranch(ctx *sql.Context, db *Database, b, current string, force bool) error {
	g := db.st.graph
	if b == current {
		return fmt.Errorf("dolt_branch -d: cannot delete the checked out branch %q; check out another branch first with dolt_checkout", b)
	}
	if b == db.st.branch {
		return fmt.Errorf("dolt_branch -d: cannot delete %q, the default branch of database %s (.verso/HEAD)", b, db.st.name)
	}
	head, err := g.Head(ctx, b)
	if err != nil {
		return branchError("dolt_branch -d", b, err)
	}
	if !force {
		cur, err := g.Head(ctx, current)
		if err != nil {
			return err
		}
		ok, err := g.IsAncestor(ctx, head, cur)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("dolt_branch -d: branch %q is not fully merged into %q; delete it anyway with -D (or -d -f)", b, current)
		}
	}
	return g.DeleteBranch(ctx, b)
}

// branchError words a commitgraph error about branch for a user.
func branchError(proc, branch string, err error) error {
	switch {
	case errors.Is(err, commitgraph.ErrBranchNotFound):
		return fmt.Errorf("%s: no branch named %q; list the branches with SELECT name FROM dolt_branches", proc, branch)
	case errors.Is(err, commitgraph.ErrBranchExists):
		return fmt.Errorf("%s: a branch named %q already exists; choose another name, or give -f to overwrite it", proc, branch)
	case errors.Is(err, commitgraph.ErrBadName):
		return fmt.Errorf("%s: %w", proc, err)
	}
	return err
}

var checkoutSpec = optSpec{
	proc:   "dolt_checkout",
	opts:   map[string]bool{"b": true, "B": true},
	shorts: map[byte]string{'b': "b", 'B': "B"},
}

func doltCheckout(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := checkoutSpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	if db.name != db.st.name {
		return nil, fmt.Errorf("dolt_checkout: the session uses the revision database %q; USE %s first, or USE `%s/<branch>` to switch", db.name, db.st.name, db.st.name)
	}
	g := db.st.graph
	if a.has("b") || a.has("B") {
		opt := "b"
		if a.has("B") {
			opt = "B"
		}
		name := a.vals[opt]
		if len(a.pos) > 1 {
			return nil, fmt.Errorf("dolt_checkout -%s: give the new branch and an optional start point", opt)
		}
		var ws *commitgraph.WorkingSet
		var start *commitgraph.Commit
		if len(a.pos) == 1 {
			if start, err = g.Resolve(ctx, a.pos[0], db.branch); err != nil {
				return nil, fmt.Errorf("dolt_checkout -%s: start point %q: %w", opt, a.pos[0], err)
			}
		} else {
			// From HEAD, the new branch takes the working set along (with
			// the transaction's writes), as Dolt does.
			d, err := txDatabase(ctx, db.st, db.branch)
			if err != nil {
				return nil, err
			}
			if err := d.flushAll(ctx); err != nil {
				return nil, err
			}
			head, cur, err := g.BranchState(ctx, db.branch)
			if err != nil {
				return nil, err
			}
			w, err := d.PendingWorking(ctx, cur)
			if err != nil {
				return nil, err
			}
			start = head
			ws = &commitgraph.WorkingSet{Working: w.Address(), Staged: cur.Staged}
		}
		if opt == "B" && name == db.branch {
			return nil, fmt.Errorf("dolt_checkout -B: %q is checked out; reset it with dolt_reset('--hard', ...) instead", name)
		}
		if err := g.SetBranch(ctx, name, start.Addr, ws, opt == "B"); err != nil {
			return nil, branchError("dolt_checkout -"+opt, name, err)
		}
		setSessionBranch(ctx, db.st, name)
		return sql.RowsToRowIter(sql.Row{int64(0), fmt.Sprintf("Switched to branch '%s'", name)}), nil
	}
	if len(a.pos) == 0 {
		return nil, errors.New("dolt_checkout: name a branch to switch to, or tables whose working changes to discard")
	}
	if a.afterDashes < 0 && len(a.pos) == 1 {
		b := a.pos[0]
		if _, err := g.Head(ctx, b); err == nil {
			setSessionBranch(ctx, db.st, b)
			return sql.RowsToRowIter(sql.Row{int64(0), fmt.Sprintf("Switched to branch '%s'", b)}), nil
		}
	}
	tables := a.pos
	var from *commitgraph.Commit // dolt_checkout('ref', '--', 't'...)
	if a.afterDashes > 1 {
		return nil, errors.New("dolt_checkout: give one revision before '--' and the tables after it")
	}
	if a.afterDashes == 1 {
		if from, err = g.Resolve(ctx, a.pos[0], db.branch); err != nil {
			return nil, fmt.Errorf("dolt_checkout: %q: %w", a.pos[0], err)
		}
		tables = a.pos[1:]
		if len(tables) == 0 {
			return nil, errors.New("dolt_checkout: name the tables to check out after '--'")
		}
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	err = d.updateBranch(ctx, func(s *verso.BranchState) (*verso.BranchChange, error) {
		if from != nil {
			// Tables of another revision replace both the staged and the
			// working tables, as git checkout <rev> -- <file> does.
			src, err := g.OpenRoot(ctx, from.Root)
			if err != nil {
				return nil, err
			}
			staged, err := verso.CopyItems(ctx, src, s.Staged, tables, "dolt_checkout")
			if err != nil {
				return nil, err
			}
			w, err := verso.CopyItems(ctx, src, s.Working, tables, "dolt_checkout")
			if err != nil {
				return nil, err
			}
			return &verso.BranchChange{Working: w, Staged: staged, Merge: s.WS.Merge}, nil
		}
		items, err := verso.ItemEntries(ctx, s.Working)
		if err != nil {
			return nil, err
		}
		staged, err := verso.ItemEntries(ctx, s.Staged)
		if err != nil {
			return nil, err
		}
		for _, t := range tables {
			if verso.FindItem(items, t) == "" && verso.FindItem(staged, t) == "" {
				if len(tables) == 1 {
					return nil, fmt.Errorf("dolt_checkout: no branch or table named %q; list the branches with SELECT name FROM dolt_branches, or create one with dolt_checkout('-b', '%s')", t, t)
				}
				return nil, fmt.Errorf("dolt_checkout: no table named %q; SHOW TABLES lists the tables", t)
			}
		}
		w, err := verso.CopyItems(ctx, s.Staged, s.Working, tables, "dolt_checkout")
		if err != nil {
			return nil, err
		}
		return &verso.BranchChange{Working: w, Staged: s.Staged, Merge: s.WS.Merge}, nil
	})
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(sql.Row{int64(0), ""}), nil
}

var tagSpec = optSpec{
	proc:   "dolt_tag",
	opts:   map[string]bool{"message": true, "delete": false, "author": true},
	shorts: map[byte]string{'m': "message", 'd': "delete"},
}

func doltTag(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := tagSpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	g := db.st.graph
	if a.has("delete") {
		if len(a.pos) == 0 {
			return nil, errors.New("dolt_tag -d: name the tags to delete")
		}
		for _, t := range a.pos {
			if err := g.DeleteTag(ctx, t); errors.Is(err, commitgraph.ErrTagNotFound) {
				return nil, fmt.Errorf("dolt_tag -d: no tag named %q; list the tags with SELECT tag_name FROM dolt_tags", t)
			} else if err != nil {
				return nil, err
			}
		}
		return statusRow(0), nil
	}
	if len(a.pos) == 0 || len(a.pos) > 2 {
		return nil, errors.New("dolt_tag: give a tag name and an optional ref ('name', 'ref'); list the tags with SELECT * FROM dolt_tags")
	}
	ref := "HEAD"
	if len(a.pos) == 2 {
		ref = a.pos[1]
	}
	c, err := g.Resolve(ctx, ref, db.branch)
	if err != nil {
		return nil, fmt.Errorf("dolt_tag: %q: %w", ref, err)
	}
	var tagger commitgraph.Signature
	if a.has("author") {
		if tagger, err = parseAuthor(a.vals["author"]); err != nil {
			return nil, err
		}
	} else if tagger, err = commitIdentity(ctx); err != nil {
		return nil, err
	}
	_, err = g.CreateTag(ctx, a.pos[0], c.Addr, commitgraph.TagMeta{Tagger: tagger, Message: a.vals["message"]})
	if errors.Is(err, commitgraph.ErrTagExists) {
		return nil, fmt.Errorf("dolt_tag: a tag named %q already exists; delete it first with dolt_tag('-d', '%s')", a.pos[0], a.pos[0])
	}
	if err != nil {
		return nil, err
	}
	return statusRow(0), nil
}

var resetSpec = optSpec{
	proc:   "dolt_reset",
	opts:   map[string]bool{"soft": false, "hard": false},
	shorts: map[byte]string{},
}

func doltReset(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := resetSpec.parse(args)
	if err != nil {
		return nil, err
	}
	if a.has("soft") && a.has("hard") {
		return nil, errors.New("dolt_reset: --soft and --hard contradict each other; give one")
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	g := d.st.graph
	// A single argument that resolves to a commit is a ref; anything else
	// names tables.
	var target *commitgraph.Commit
	tables := a.pos
	if len(a.pos) > 0 && a.afterDashes != 0 {
		c, rerr := g.Resolve(ctx, a.pos[0], d.Branch())
		switch {
		case rerr == nil:
			target, tables = c, a.pos[1:]
		case a.has("hard") || a.has("soft"):
			return nil, fmt.Errorf("dolt_reset: %q: %w", a.pos[0], rerr)
		}
	}
	if (a.has("hard") || a.has("soft")) && len(tables) > 0 {
		return nil, fmt.Errorf("dolt_reset: --hard and --soft take a ref, not tables (%q)", tables[0])
	}
	if target != nil && len(tables) > 0 {
		return nil, errors.New("dolt_reset: resetting tables to another commit is not supported; give a ref or tables")
	}
	err = d.updateBranch(ctx, func(s *verso.BranchState) (*verso.BranchChange, error) {
		ch := &verso.BranchChange{Working: s.Working, Staged: s.Staged, Merge: s.WS.Merge}
		to := s.Head
		if target != nil {
			to = target
			ch.Head = to.Addr
		}
		toRt, err := g.OpenRoot(ctx, to.Root)
		if err != nil {
			return nil, err
		}
		switch {
		case a.has("hard"):
			// As git and Dolt do, --hard keeps untracked tables: those
			// only in the working root (dolt_clean's business).
			w, err := keepUntracked(ctx, s, toRt)
			if err != nil {
				return nil, err
			}
			ch.Working, ch.Staged, ch.Merge = w, toRt, nil
		case len(tables) > 0:
			if ch.Staged, err = verso.CopyItems(ctx, s.HeadRoot, s.Staged, tables, "dolt_reset"); err != nil {
				return nil, err
			}
		case a.has("soft") && target != nil:
			// the head moves; staged and working stay
		default:
			ch.Staged = toRt
		}
		return ch, nil
	})
	if err != nil {
		return nil, err
	}
	return statusRow(0), nil
}

// keepUntracked returns to with the items of s's working root that are
// neither staged, nor in HEAD, nor in to.
func keepUntracked(ctx *sql.Context, s *verso.BranchState, to commitgraph.RootValue) (commitgraph.RootValue, error) {
	working, err := verso.ItemEntries(ctx, s.Working)
	if err != nil {
		return to, err
	}
	var others []map[string][]commitgraph.RootEntry
	for _, r := range []commitgraph.RootValue{s.Staged, s.HeadRoot, to} {
		items, err := verso.ItemEntries(ctx, r)
		if err != nil {
			return to, err
		}
		others = append(others, items)
	}
	var untracked []string
	for name := range working {
		if name == verso.SchemasItem {
			continue
		}
		tracked := false
		for _, o := range others {
			if verso.FindItem(o, name) != "" {
				tracked = true
			}
		}
		if !tracked {
			untracked = append(untracked, name)
		}
	}
	if len(untracked) == 0 {
		return to, nil
	}
	return verso.CopyItems(ctx, s.Working, to, untracked, "dolt_reset")
}
