package sqlserver

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
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
//	CALL dolt_checkout('-b', 'new' [, 'start'])  create (clean) and switch
//	CALL dolt_checkout('t1', 't2'), ('.')        discard working changes
//	CALL dolt_checkout('ref', '--', 't1', ...)   tables as ref has them
//	CALL dolt_tag('name' [, 'ref'] [, '-m', msg]), dolt_tag('-d', 'name')
//	CALL dolt_reset([--soft | --hard] [ref]), dolt_reset('t1', ...)
//
// Each returns status 0 (dolt_checkout also a message) or an error, in
// Dolt's words and Dolt's order of checks (doltwords.go). Moving the
// session's own branch with dolt_branch -f or dolt_checkout -B is the one
// place verso refuses what Dolt does: with uncommitted changes, which
// Dolt would drop (verso.Txn.MoveHead).

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
	// Dolt's precedence when several are given: -c, -m, then -d.
	switch {
	case a.has("copy"):
		err = copyBranch(ctx, db, a)
	case a.has("move"):
		err = moveBranch(ctx, db, a)
	case a.has("delete"), a.has("D"):
		err = deleteBranches(ctx, db, a)
	default:
		err = newBranch(ctx, db, a)
	}
	if err != nil {
		return nil, err
	}
	return statusRow(0), nil
}

// newBranch is dolt_branch('name' [, 'start']), -f moving a branch.
func newBranch(ctx *sql.Context, db *Database, a *procArgs) error {
	if len(a.pos) == 0 || len(a.pos) > 2 {
		return errInvalidUsage
	}
	name, start := a.pos[0], "HEAD"
	if name == "" {
		return errEmptyBranchName
	}
	if len(a.pos) == 2 {
		if start = a.pos[1]; start == "" {
			return errInvalidUsage
		}
	}
	if err := setBranch(ctx, db, name, start, a.has("force")); err != nil {
		return err
	}
	if a.has("track") {
		if up, ok := trackedStart(ctx, db, start); ok {
			return db.st.db.SetUpstream(ctx, name, up)
		}
	}
	return nil
}

// trackedStart returns the remote branch a start point names when it is
// a remote-tracking branch (origin/main, remotes/origin/main).
func trackedStart(ctx *sql.Context, db *Database, start string) (verso.Upstream, bool) {
	rbs, err := db.st.db.RemoteBranches(ctx)
	if err != nil {
		return verso.Upstream{}, false
	}
	start = strings.TrimPrefix(strings.TrimPrefix(start, "refs/"), "remotes/")
	for _, rb := range rbs {
		if rb.Name == start {
			return verso.Upstream{Remote: rb.Remote, Branch: rb.Branch}, true
		}
	}
	return verso.Upstream{}, false
}

// trackingMessage is what dolt_checkout adds when a new branch tracks a
// remote branch.
func trackingMessage(branch string, up verso.Upstream) string {
	return fmt.Sprintf("\nbranch '%s' set up to track '%s/%s'.", branch, up.Remote, up.Branch)
}

// setBranch points the branch name at the commit start names, as
// dolt_branch and dolt_checkout -b and -B do: a new branch, or with force
// an existing one moved, its working set becoming the commit's. The
// session's own branch moves only while it has nothing uncommitted
// (verso.Txn.MoveHead). Refusals are Dolt's, in its order: the name taken,
// a bad name, then the start point.
func setBranch(ctx *sql.Context, db *Database, name, start string, force bool) error {
	if db.rev != nil {
		return fmt.Errorf("fatal: Unexpected error creating branch '%s' : %w", name, errDetachedHead)
	}
	if !force {
		if _, err := db.st.graph.Head(ctx, name); err == nil {
			return errBranchExists(name)
		} else if !errors.Is(err, verso.ErrBranchNotFound) {
			return err
		}
	}
	if commitgraph.CheckName(name) != nil {
		return fmt.Errorf("fatal: '%s' is an invalid branch name.", name)
	}
	var err error
	if force && name == db.branch {
		d, derr := txDatabase(ctx, db.st, db.branch)
		if derr != nil {
			return derr
		}
		err = d.updateBranchWith(ctx, func() error { return d.MoveHead(ctx, start) })
	} else {
		err = db.st.db.SetBranch(ctx, name, start, verso.BranchOptions{Head: db.branch, Force: force})
	}
	var rev *verso.RevisionError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, verso.ErrBranchExists):
		return errBranchExists(name)
	case errors.Is(err, verso.ErrBadName):
		return fmt.Errorf("fatal: '%s' is an invalid branch name.", name)
	case errors.Is(err, verso.ErrUncommittedChanges):
		return fmt.Errorf("fatal: cannot move the checked-out branch '%s' to '%s': it has uncommitted changes; commit them, or discard them with dolt_reset('--hard'), first", name, start)
	case errors.As(err, &rev) && errors.Is(err, verso.ErrNoSuchAncestor):
		return fmt.Errorf("fatal: Unexpected error creating branch '%s' : %w", name, revisionError(start, rev.Err))
	case errors.As(err, &rev):
		return fmt.Errorf("fatal: '%s' is not a commit and a branch '%s' cannot be created from it", start, name)
	}
	return engineError(err)
}

// copyBranch is dolt_branch('-c' [, '-f'], 'from', 'to').
func copyBranch(ctx *sql.Context, db *Database, a *procArgs) error {
	if len(a.pos) != 2 {
		return errInvalidUsage
	}
	from, to := a.pos[0], a.pos[1]
	if from == "" || to == "" {
		return errEmptyBranchName
	}
	err := db.st.db.CopyBranch(ctx, from, to, verso.BranchOptions{Head: db.branch, Force: a.has("force")})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, verso.ErrBranchNotFound):
		return fmt.Errorf("fatal: A branch named '%s' not found", from)
	case errors.Is(err, verso.ErrBranchExists):
		return errBranchExists(to)
	case errors.Is(err, verso.ErrBadName):
		return fmt.Errorf("fatal: '%s' is not a valid branch name.", to)
	}
	return engineError(err)
}

// moveBranch is dolt_branch('-m' [, '-f'], 'from', 'to'); a session on
// from follows it to its new name.
func moveBranch(ctx *sql.Context, db *Database, a *procArgs) error {
	if len(a.pos) != 2 {
		return errInvalidUsage
	}
	from, to := a.pos[0], a.pos[1]
	if from == "" || to == "" {
		return errEmptyBranchName
	}
	err := db.st.db.RenameBranch(ctx, from, to, verso.BranchOptions{Head: db.branch, Force: a.has("force")})
	switch {
	case errors.Is(err, verso.ErrDefaultBranch):
		return errDefaultBranch("rename", from, db.st.name)
	case errors.Is(err, verso.ErrBranchNotFound):
		return errors.New("branch not found")
	case errors.Is(err, verso.ErrBranchExists):
		return errBranchExists(to)
	case errors.Is(err, verso.ErrBadName):
		return errors.New("not a valid user branch name")
	case err != nil:
		return engineError(err)
	}
	if from != to && db.branch == from {
		setSessionBranch(ctx, db.st, to)
	}
	return nil
}

// deleteBranches is dolt_branch('-d' | '-D' [, '-f'], 'b', ...): the
// branches in order, up to the first refusal.
func deleteBranches(ctx *sql.Context, db *Database, a *procArgs) error {
	if len(a.pos) == 0 {
		return errInvalidUsage
	}
	e := db.st.db
	opts := verso.BranchOptions{Head: db.branch, Force: a.has("force") || a.has("D")}
	for _, b := range a.pos {
		if b == "" {
			return errEmptyBranchName
		}
		err := e.DeleteBranch(ctx, b, opts)
		switch {
		case err == nil:
			continue
		case errors.Is(err, verso.ErrDefaultBranch),
			errors.Is(err, verso.ErrBranchCheckedOut) && b == e.DefaultBranch():
			return errDefaultBranch("delete", b, db.st.name)
		case errors.Is(err, verso.ErrBranchCheckedOut):
			return fmt.Errorf("Cannot delete checked out branch '%s'", b)
		case errors.Is(err, verso.ErrBranchNotFound):
			return errors.New("branch not found")
		case errors.Is(err, verso.ErrNotMerged):
			return fmt.Errorf("branch '%s' is not fully merged", b)
		}
		return engineError(err)
	}
	return nil
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
	msg, err := checkout(ctx, db, a)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(sql.Row{int64(0), msg}), nil
}

// checkout does dolt_checkout's work and returns its message, deciding as
// Dolt does what the arguments name. -b or -B makes a branch, clean, and
// switches to it. Otherwise: a lone tag or commit hash is refused (no
// detached head); the current branch is "Already on"; '--' first names
// tables; a branch before '--' is switched to, or is where the tables
// after it come from; a first argument of several that is no table is the
// revision the others come from; a branch is switched to; the rest are
// tables whose working changes to discard ('.' for all).
func checkout(ctx *sql.Context, db *Database, a *procArgs) (string, error) {
	if a.has("b") && a.has("B") {
		return "", errors.New("Improper usage. Cannot use both -b and -B.")
	}
	if a.has("b") || a.has("B") {
		force := a.has("B")
		name := a.vals["b"]
		if force {
			name = a.vals["B"]
		}
		if name == "" {
			return "", errEmptyCheckout
		}
		// One argument is the start point; Dolt ignores more.
		start := "HEAD"
		if len(a.pos) == 1 {
			start = a.pos[0]
		}
		if err := setBranch(ctx, db, name, start, force); err != nil {
			return "", err
		}
		if up, ok := trackedStart(ctx, db, start); ok {
			if err := db.st.db.SetUpstream(ctx, name, up); err != nil {
				return "", err
			}
			return switchBranch(ctx, db, name) + trackingMessage(name, up), nil
		}
		return switchBranch(ctx, db, name), nil
	}
	if a.afterDashes >= 2 {
		return "", fmt.Errorf("only one reference expected, %d given", a.afterDashes)
	}
	if len(a.pos) == 0 {
		return "", errors.New("Improper usage.")
	}
	first := a.pos[0]
	if first == "" {
		return "", errEmptyCheckout
	}
	if len(a.pos) == 1 {
		if _, err := db.st.graph.Tag(ctx, first); err == nil {
			return "", detachedHeadError(first, true)
		} else if !errors.Is(err, verso.ErrTagNotFound) {
			return "", err
		}
		if looksLikeHash(first) {
			return "", detachedHeadError(first, false)
		}
		if first == db.branch {
			return fmt.Sprintf("Already on branch '%s'", first), nil
		}
	}
	if a.afterDashes == 0 {
		return "", checkoutTables(ctx, "", a.pos)
	}
	_, err := db.st.graph.Head(ctx, first)
	isBranch := err == nil
	if err != nil && !errors.Is(err, verso.ErrBranchNotFound) {
		return "", err
	}
	if a.afterDashes == 1 && isBranch {
		if len(a.pos) == 1 {
			return switchBranch(ctx, db, first), nil
		}
		return "", checkoutTables(ctx, first, a.pos[1:])
	}
	if len(a.pos) > 1 {
		d, err := txDatabase(ctx, db.st, db.branch)
		if err != nil {
			return "", err
		}
		_, _, isTable, err := verso.FindTable(ctx, d.Root(), first)
		if err != nil {
			return "", err
		}
		if !isTable {
			return "", checkoutTables(ctx, first, a.pos[1:])
		}
	}
	if isBranch {
		return switchBranch(ctx, db, first), nil
	}
	if len(a.pos) == 1 {
		// A branch only a remote has: made here, tracking it, as Dolt
		// (and Git) do when exactly one remote has it.
		if up, ok := onlyRemoteBranch(ctx, db, first); ok {
			if err := setBranch(ctx, db, first, up.Remote+"/"+up.Branch, false); err != nil {
				return "", err
			}
			if err := db.st.db.SetUpstream(ctx, first, up); err != nil {
				return "", err
			}
			return switchBranch(ctx, db, first) + trackingMessage(first, up), nil
		}
	}
	return "", checkoutTables(ctx, "", a.pos)
}

// onlyRemoteBranch returns the remote branch called branch, if exactly
// one remote has a remote-tracking branch of that name.
func onlyRemoteBranch(ctx *sql.Context, db *Database, branch string) (verso.Upstream, bool) {
	rbs, err := db.st.db.RemoteBranches(ctx)
	if err != nil {
		return verso.Upstream{}, false
	}
	var found []verso.Upstream
	for _, rb := range rbs {
		if rb.Branch == branch {
			found = append(found, verso.Upstream{Remote: rb.Remote, Branch: rb.Branch})
		}
	}
	if len(found) != 1 {
		return verso.Upstream{}, false
	}
	return found[0], true
}

// switchBranch makes branch the session's and returns dolt_checkout's
// message.
func switchBranch(ctx *sql.Context, db *Database, branch string) string {
	setSessionBranch(ctx, db.st, branch)
	return fmt.Sprintf("Switched to branch '%s'", branch)
}

// checkoutTables discards the working changes of tables ('.' for all),
// their staged versions replacing them, or with rev takes both their
// staged and working versions from that revision.
func checkoutTables(ctx *sql.Context, rev string, tables []string) error {
	d, err := procBranch(ctx)
	if err != nil {
		return err
	}
	err = d.updateBranchWith(ctx, func() error {
		if rev == "" && len(tables) == 1 && tables[0] == "." {
			return d.CheckoutAll(ctx)
		}
		return d.CheckoutTables(ctx, rev, tables)
	})
	var re *verso.RevisionError
	var nt *verso.TableNotFoundError
	switch {
	case errors.As(err, &re):
		return revisionError(rev, re.Err)
	case errors.As(err, &nt):
		return errTablespec(nt.Table, rev != "")
	case err != nil:
		return stagingError("dolt_checkout", err)
	}
	return nil
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
	// -v asks for the listing, which is dolt_tags' business.
	if len(a.pos) == 0 || a.has("verbose") {
		return nil, errTagUsage
	}
	e := db.st.db
	if a.has("delete") {
		if a.has("message") {
			return nil, errors.New("delete and tag message options are incompatible")
		}
		for _, t := range a.pos {
			if err := e.DeleteTag(ctx, t); errors.Is(err, verso.ErrTagNotFound) {
				return nil, errors.New("tag not found")
			} else if err != nil {
				return nil, err
			}
		}
		return statusRow(0), nil
	}
	if len(a.pos) > 2 {
		return nil, errors.New("create tag takes at most two args")
	}
	name, ref := a.pos[0], "HEAD"
	if len(a.pos) == 2 {
		ref = a.pos[1]
	}
	// Dolt's order: the name taken, a bad name, then the revision.
	if _, err := db.st.graph.Tag(ctx, name); err == nil {
		return nil, errors.New("already exists")
	} else if !errors.Is(err, verso.ErrTagNotFound) {
		return nil, err
	}
	if commitgraph.CheckName(name) != nil {
		return nil, errors.New("not a valid user tag name")
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
	_, err = e.CreateTag(ctx, name, ref, opts)
	var rev *verso.RevisionError
	switch {
	case errors.As(err, &rev):
		return nil, revisionError(ref, rev.Err)
	case errors.Is(err, verso.ErrNoAuthor) && idErr != nil:
		return nil, idErr
	case errors.Is(err, verso.ErrTagExists):
		return nil, errors.New("already exists")
	case errors.Is(err, verso.ErrBadName):
		return nil, errors.New("not a valid user tag name")
	case err != nil:
		return nil, err
	}
	return statusRow(0), nil
}

var resetSpec = procSpec("dolt_reset", doltargs.Reset())

// doltReset is dolt_reset, deciding as Dolt does what the arguments name:
// --hard and --soft take at most a revision; without them a single
// argument is a table of the head, staged or working root, else a
// revision, and anything else (no argument, '.', several) unstages every
// table.
func doltReset(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := resetSpec.parse(args)
	if err != nil {
		return nil, err
	}
	if a.has("soft") && a.has("hard") {
		return nil, errors.New("error: --hard and --soft are mutually exclusive options.")
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	if db.rev != nil {
		return nil, errors.New("unable to reset HEAD in read-only databases")
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	reset := func(opts verso.ResetOptions) error {
		return d.updateBranchWith(ctx, func() error { return d.Reset(ctx, opts) })
	}
	opts := verso.ResetOptions{Soft: a.has("soft"), Hard: a.has("hard")}
	if slices.Contains(a.pos, "") { // NULL too
		return nil, revisionError("", nil)
	}
	switch {
	case opts.Hard || opts.Soft:
		if len(a.pos) > 1 {
			return nil, fmt.Errorf("--%s supports at most one additional param", map[bool]string{true: "hard", false: "soft"}[opts.Hard])
		}
		if len(a.pos) == 1 {
			opts.Rev = a.pos[0]
		}
		err = reset(opts)
	case len(a.pos) == 1 && a.pos[0] != ".":
		name := a.pos[0]
		err = reset(verso.ResetOptions{Tables: []string{name}})
		var nt *verso.TableNotFoundError
		if errors.As(err, &nt) {
			// Not staged nor in the head: a table only in the working
			// root has nothing to reset, and a name of no table is a
			// revision.
			_, _, inWorking, ferr := verso.FindTable(ctx, d.Root(), name)
			switch {
			case ferr != nil:
				return nil, ferr
			case inWorking:
				return nil, fmt.Errorf("error: the table(s) %s do not exist", name)
			}
			err = reset(verso.ResetOptions{Rev: name})
		}
	default:
		err = reset(opts)
	}
	var rev *verso.RevisionError
	switch {
	case errors.As(err, &rev):
		return nil, revisionError(rev.Rev, rev.Err)
	case err != nil:
		return nil, stagingError("dolt_reset", err)
	}
	return statusRow(0), nil
}
