package sqlserver

import (
	"errors"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/internal/doltargs"
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

var branchSpec = procSpec("dolt_branch", doltargs.Branch())

func doltBranch(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := branchSpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
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
	e := db.st.db
	switch {
	case a.has("delete") || a.has("D"):
		if len(a.pos) == 0 {
			return nil, errors.New("dolt_branch -d: name the branches to delete")
		}
		opts := verso.BranchOptions{Head: db.branch, Force: force || a.has("D")}
		for _, b := range a.pos {
			if err := e.DeleteBranch(ctx, b, opts); err != nil {
				return nil, deleteBranchError(db, b, err)
			}
		}
	case a.has("copy"), a.has("move"):
		verb := map[bool]string{true: "-c", false: "-m"}[a.has("copy")]
		if len(a.pos) != 2 {
			return nil, fmt.Errorf("dolt_branch %s: give the branch and its new name ('%s', 'from', 'to')", verb, verb)
		}
		from, to := a.pos[0], a.pos[1]
		opts := verso.BranchOptions{Head: db.branch, Force: force}
		if a.has("copy") {
			err = e.CopyBranch(ctx, from, to, opts)
		} else {
			err = e.RenameBranch(ctx, from, to, opts)
		}
		switch {
		case errors.Is(err, verso.ErrDefaultBranch):
			return nil, fmt.Errorf("dolt_branch -m: %q is the default branch of database %s (.verso/HEAD) and cannot be renamed; copy it with -c instead", from, db.st.name)
		case errors.Is(err, verso.ErrBranchNotFound):
			return nil, branchError("dolt_branch", from, err)
		case err != nil:
			return nil, branchError("dolt_branch", to, err)
		}
		if a.has("move") && from != to && db.branch == from {
			setSessionBranch(ctx, db.st, to)
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
		var rev *verso.RevisionError
		err := e.SetBranch(ctx, name, start, verso.BranchOptions{Head: db.branch, Force: force})
		switch {
		case errors.Is(err, verso.ErrBranchCheckedOut):
			return nil, fmt.Errorf("dolt_branch -f: %q is the session's checked-out branch; reset it with dolt_reset('--hard', '%s') instead", name, start)
		case errors.As(err, &rev):
			return nil, fmt.Errorf("dolt_branch: start point %q: %w", start, rev.Err)
		case err != nil:
			return nil, branchError("dolt_branch", name, err)
		}
	}
	return statusRow(0), nil
}

// deleteBranchError words the engine's refusal to delete the branch b of
// db.
func deleteBranchError(db *Database, b string, err error) error {
	switch {
	case errors.Is(err, verso.ErrBranchCheckedOut):
		return fmt.Errorf("dolt_branch -d: cannot delete the checked out branch %q; check out another branch first with dolt_checkout", b)
	case errors.Is(err, verso.ErrDefaultBranch):
		return fmt.Errorf("dolt_branch -d: cannot delete %q, the default branch of database %s (.verso/HEAD)", b, db.st.name)
	case errors.Is(err, verso.ErrNotMerged):
		return fmt.Errorf("dolt_branch -d: branch %q is not fully merged into %q; delete it anyway with -D (or -d -f)", b, db.branch)
	}
	return branchError("dolt_branch -d", b, err)
}

// branchError words an engine error about branch for a user.
func branchError(proc, branch string, err error) error {
	switch {
	case errors.Is(err, verso.ErrBranchNotFound):
		return fmt.Errorf("%s: no branch named %q; list the branches with SELECT name FROM dolt_branches", proc, branch)
	case errors.Is(err, verso.ErrBranchExists):
		return fmt.Errorf("%s: a branch named %q already exists; choose another name, or give -f to overwrite it", proc, branch)
	case errors.Is(err, verso.ErrBadName):
		return fmt.Errorf("%s: %w", proc, err)
	}
	return err
}

var checkoutSpec = procSpec("dolt_checkout", doltargs.Checkout())

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
	if a.has("b") || a.has("B") {
		opt := "b"
		if a.has("B") {
			opt = "B"
		}
		name := a.vals[opt]
		if len(a.pos) > 1 {
			return nil, fmt.Errorf("dolt_checkout -%s: give the new branch and an optional start point", opt)
		}
		if len(a.pos) == 1 {
			err = db.st.db.SetBranch(ctx, name, a.pos[0], verso.BranchOptions{Head: db.branch, Force: opt == "B"})
		} else {
			// From HEAD, the new branch takes the working set along (with
			// the transaction's writes), as Dolt does.
			d, derr := txDatabase(ctx, db.st, db.branch)
			if derr != nil {
				return nil, derr
			}
			if err := d.flushAll(ctx); err != nil {
				return nil, err
			}
			err = d.ForkBranch(ctx, name, opt == "B")
		}
		var rev *verso.RevisionError
		switch {
		case len(a.pos) == 1 && errors.As(err, &rev):
			return nil, fmt.Errorf("dolt_checkout -%s: start point %q: %w", opt, a.pos[0], rev.Err)
		case errors.Is(err, verso.ErrBranchCheckedOut):
			return nil, fmt.Errorf("dolt_checkout -B: %q is checked out; reset it with dolt_reset('--hard', ...) instead", name)
		case err != nil:
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
		if _, err := db.st.graph.Head(ctx, b); err == nil {
			setSessionBranch(ctx, db.st, b)
			return sql.RowsToRowIter(sql.Row{int64(0), fmt.Sprintf("Switched to branch '%s'", b)}), nil
		}
	}
	tables, rev := a.pos, "" // dolt_checkout('ref', '--', 't'...)
	if a.afterDashes > 1 {
		return nil, errors.New("dolt_checkout: give one revision before '--' and the tables after it")
	}
	if a.afterDashes == 1 {
		rev, tables = a.pos[0], a.pos[1:]
		if len(tables) == 0 {
			return nil, errors.New("dolt_checkout: name the tables to check out after '--'")
		}
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	err = d.updateBranchWith(ctx, func() error { return d.CheckoutTables(ctx, rev, tables) })
	var re *verso.RevisionError
	var nt *verso.TableNotFoundError
	switch {
	case errors.As(err, &re):
		return nil, fmt.Errorf("dolt_checkout: %q: %w", rev, re.Err)
	case errors.As(err, &nt) && rev == "" && len(tables) == 1:
		return nil, fmt.Errorf("dolt_checkout: no branch or table named %q; list the branches with SELECT name FROM dolt_branches, or create one with dolt_checkout('-b', '%s')", nt.Table, nt.Table)
	case errors.As(err, &nt) && rev == "":
		return nil, fmt.Errorf("dolt_checkout: no table named %q; SHOW TABLES lists the tables", nt.Table)
	case err != nil:
		return nil, stagingError("dolt_checkout", err)
	}
	return sql.RowsToRowIter(sql.Row{int64(0), ""}), nil
}

var tagSpec = procSpec("dolt_tag", doltargs.Tag())

func doltTag(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := tagSpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	e := db.st.db
	if a.has("delete") {
		if len(a.pos) == 0 {
			return nil, errors.New("dolt_tag -d: name the tags to delete")
		}
		for _, t := range a.pos {
			if err := e.DeleteTag(ctx, t); errors.Is(err, verso.ErrTagNotFound) {
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
	// The session's identity unless --author; its error shows only if the
	// tag is to be made.
	opts := verso.TagOptions{Head: db.branch, Message: a.vals["message"]}
	var idErr error
	if a.has("author") {
		if opts.Tagger, err = parseAuthor(a.vals["author"]); err != nil {
			return nil, err
		}
	} else {
		opts.Tagger, idErr = commitIdentity(ctx)
	}
	_, err = e.CreateTag(ctx, a.pos[0], ref, opts)
	var rev *verso.RevisionError
	switch {
	case errors.As(err, &rev):
		return nil, fmt.Errorf("dolt_tag: %q: %w", ref, rev.Err)
	case errors.Is(err, verso.ErrNoAuthor) && idErr != nil:
		return nil, idErr
	case errors.Is(err, verso.ErrTagExists):
		return nil, fmt.Errorf("dolt_tag: a tag named %q already exists; delete it first with dolt_tag('-d', '%s')", a.pos[0], a.pos[0])
	case err != nil:
		return nil, err
	}
	return statusRow(0), nil
}

var resetSpec = procSpec("dolt_reset", doltargs.Reset())

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
	// A single argument that resolves to a commit is a ref; anything else
	// names tables.
	opts := verso.ResetOptions{Soft: a.has("soft"), Hard: a.has("hard"), Tables: a.pos}
	if len(a.pos) > 0 && a.afterDashes != 0 {
		_, rerr := d.DB().Resolve(ctx, a.pos[0], d.Branch())
		var rev *verso.RevisionError
		switch {
		case rerr == nil:
			opts.Rev, opts.Tables = a.pos[0], a.pos[1:]
		case !errors.As(rerr, &rev):
			return nil, rerr
		case opts.Hard || opts.Soft:
			return nil, fmt.Errorf("dolt_reset: %q: %w", a.pos[0], rev.Err)
		}
	}
	if (opts.Hard || opts.Soft) && len(opts.Tables) > 0 {
		return nil, fmt.Errorf("dolt_reset: --hard and --soft take a ref, not tables (%q)", opts.Tables[0])
	}
	if opts.Rev != "" && len(opts.Tables) > 0 {
		return nil, errors.New("dolt_reset: resetting tables to another commit is not supported; give a ref or tables")
	}
	if err := d.updateBranchWith(ctx, func() error { return d.Reset(ctx, opts) }); err != nil {
		return nil, stagingError("dolt_reset", err)
	}
	return statusRow(0), nil
}
