package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/doltargs"
	"github.com/verso-db/verso/tablemerge"
	"github.com/verso-db/verso/tables"
)

// dolt_merge, dolt_cherry_pick and dolt_revert: three-way merges of root
// values (package tablemerge) into the session's branch.
//
//	CALL dolt_merge('feature' [, '-m', msg] [, '--no-ff' | '--ff-only']
//	     [, '--squash'] [, '--no-commit'])   -> hash, fast_forward, conflicts, message
//	CALL dolt_merge('--abort')
//	CALL dolt_cherry_pick('commit' [, '--allow-empty'])
//	                                         -> hash, data_conflicts, schema_conflicts, constraint_violations
//	CALL dolt_cherry_pick('--abort')
//	CALL dolt_revert('commit', ... [, '--author', 'Name <email>'])
//	                                         -> hash, data_conflicts, schema_conflicts, constraint_violations
//
// A merge that fast-forwards moves the branch to the merged commit. Any
// other merge merges the three roots: without conflicts it commits a merge
// commit (parents: HEAD, then the merged commit) unless --no-commit or
// --squash ask to stop before; with conflicts it leaves the merged root in
// the working set with the conflicts under conflicts/<table>, the merge in
// the working set's MergeState (so the next dolt_commit makes the merge
// commit), and the tables that merged cleanly staged. A cherry-pick with
// conflicts is left the same way, its MergeState marked as a cherry-pick
// (the commit that finishes it has one parent). Merges are refused
// while the branch has uncommitted changes or a merge in progress; tables
// created and never staged (untracked) are carried over. As Dolt's, a
// merge records instead of failing: schema conflicts (and a table dropped
// on one side and changed on the other) in dolt_schema_conflicts, merged
// rows that break a unique key, a foreign key or a CHECK in
// dolt_constraint_violations_<t> (mergeVerifier, violations.go); the
// merge then stops before its commit as with conflicts. Conflicts and
// schema conflicts under autocommit fail the merge or cherry-pick unless
// @@dolt_allow_commit_conflicts, and violations fail the transaction's
// commit unless @@dolt_force_transaction_commit, as Dolt's rolled-back
// transaction does. A cherry-pick or revert still fails on them. dolt_revert makes one commit per
// commit named, all or none: conflicts fail it (Dolt leaves them to
// resolve), as does a commit whose revert changes nothing (Dolt keeps the
// reverts made before it).

// mergeProcedures are the procedures that merge commits.
var mergeProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_merge", Schema: mergeResultSchema, Function: doltMerge},
	{Name: "dolt_cherry_pick", Schema: applySchema, Function: doltCherryPick},
	{Name: "dolt_revert", Schema: applySchema, Function: doltRevert},
}

var (
	mergeResultSchema = sql.Schema{
		{Name: "hash", Type: types.LongText, Nullable: true},
		{Name: "fast_forward", Type: types.Int64, Nullable: false},
		{Name: "conflicts", Type: types.Int64, Nullable: false},
		{Name: "message", Type: types.LongText, Nullable: true},
	}
	// applySchema is the result of dolt_cherry_pick and dolt_revert.
	applySchema = sql.Schema{
		{Name: "hash", Type: types.LongText, Nullable: true},
		{Name: "data_conflicts", Type: types.Int64, Nullable: false},
		{Name: "schema_conflicts", Type: types.Int64, Nullable: false},
		{Name: "constraint_violations", Type: types.Int64, Nullable: false},
	}
)

var mergeSpec = procSpec("dolt_merge", doltargs.Merge())

// Messages of dolt_merge's result row.
const (
	msgMergeOK    = "merge successful"
	msgUpToDate   = "Everything up-to-date"
	msgAhead      = "cannot fast forward from a to b. a is ahead of b already"
	msgConflicts  = "conflicts found"
	msgMergeAbort = "merge aborted"
)

// errMergeActive is returned for a merge begun while another is in
// progress.
var errMergeActive = errors.New("merging is not possible because you have not committed an active merge")

// constantExpr evaluates an SQL expression made of literals and operators
// only (no functions, columns or subqueries, which need a catalog and a
// row).
func constantExpr(ctx *sql.Context, text string) (v any, ok bool) {
	// The planner without a catalog panics on what it would look up there
	// (functions); the walk below keeps those out, and this is the net
	// for any that it misses: such a default is simply not constant.
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	stmt, err := sqlparser.Parse("SELECT " + text)
	if err != nil {
		return nil, false
	}
	constant := true
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n.(type) {
		case *sqlparser.FuncExpr, *sqlparser.ColName, *sqlparser.Subquery, *sqlparser.ConvertExpr,
			*sqlparser.ConvertUsingExpr, *sqlparser.TimestampFuncExpr, *sqlparser.ExtractFuncExpr,
			*sqlparser.TrimExpr, *sqlparser.SubstrExpr, *sqlparser.CaseExpr, *sqlparser.CharExpr,
			*sqlparser.MatchExpr, *sqlparser.GroupConcatExpr, *sqlparser.ValuesFuncExpr,
			*sqlparser.IntervalExpr, *sqlparser.ExistsExpr:
			constant = false
		}
		return constant, nil
	}, stmt)
	if !constant {
		return nil, false
	}
	node, _, _, _, err := planbuilder.New(ctx, nil, nil).Parse("SELECT "+text, nil, false)
	if err != nil {
		return nil, false
	}
	p, ok := node.(*plan.Project)
	if !ok || len(p.Projections) != 1 || !p.Projections[0].Resolved() {
		return nil, false
	}
	v, err = p.Projections[0].Eval(ctx, nil)
	return v, err == nil
}

// columnDefault evaluates the default of a column added on one side of a
// merge for the other side's rows: any default without functions or
// column references (literals of every type, arithmetic), and
// CURRENT_TIMESTAMP (the time of the merge); others go to
// tablemerge.LiteralDefault, which explains what it cannot do.
func columnDefault(ctx *sql.Context) tablemerge.DefaultFunc {
	return func(table string, col tables.Column) (tables.Value, error) {
		if col.Default == "" {
			return tablemerge.LiteralDefault(table, col)
		}
		typ, err := planbuilder.ParseColumnTypeString(ctx, col.Type)
		if err != nil {
			return tablemerge.LiteralDefault(table, col)
		}
		text := strings.TrimSpace(col.Default)
		for len(text) > 1 && text[0] == '(' && text[len(text)-1] == ')' {
			text = strings.TrimSpace(text[1 : len(text)-1])
		}
		var v any = ctx.QueryTime() // as ALTER TABLE ADD COLUMN fills existing rows
		ok := true
		switch strings.ToUpper(strings.TrimSuffix(strings.ReplaceAll(text, " ", ""), "()")) {
		case "CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP":
		default:
			v, ok = constantExpr(ctx, text)
		}
		if !ok {
			return tablemerge.LiteralDefault(table, col)
		}
		v, _, err = typ.Convert(ctx, v)
		if err != nil {
			return tables.Value{}, fmt.Errorf("%w: table %q: the default %s of column %q does not fit its type %s: %v", tablemerge.ErrSchemaConflict, table, col.Default, col.Name, col.Type, err)
		}
		return toValue(ctx, typ, v)
	}
}

// mergeError words the engine's refusal of a merge, cherry-pick or
// revert as Dolt's proc does.
func mergeError(proc string, err error) error {
	var unc *verso.UncommittedError
	var clash *verso.UntrackedClashError
	var stomp *verso.StompError
	var rev *verso.RevisionError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, verso.ErrMergeActive):
		return errMergeActive
	case errors.As(err, &rev):
		return revisionError(rev.Rev, rev.Err)
	case errors.As(err, &stomp):
		return fmt.Errorf("error: local changes would be stomped by merge:\n\t%s\n Please commit your changes before you merge.", strings.Join(stomp.Tables, "\n\t"))
	case errors.As(err, &unc) && proc == "dolt_cherry_pick":
		return errors.New("cannot cherry-pick with uncommitted changes")
	case errors.As(err, &unc) && proc == "dolt_revert":
		return errors.New("error: Your local changes would be overwritten by revert.\nhint: Please commit your changes before you revert.")
	case errors.As(err, &unc) && unc.Conflicts:
		return fmt.Errorf("%s: the working set has unresolved conflicts in %s; resolve them and commit, or discard them with dolt_reset('--hard')", proc, strings.Join(unc.Tables, ", "))
	case errors.As(err, &unc):
		return fmt.Errorf("%s: cannot merge with uncommitted changes (in %s); commit them (dolt_commit('-Am', ...)) or discard them (dolt_reset('--hard')) first", proc, strings.Join(unc.Tables, ", "))
	case errors.As(err, &clash):
		return fmt.Errorf("%s: the merge would overwrite the untracked table %s of the working set; commit it (dolt_add, dolt_commit) or drop it first", proc, clash.Table)
	case tablemerge.IsMergeError(err):
		return fmt.Errorf("%s: %w", proc, err)
	}
	return engineError(err)
}

func doltMerge(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := mergeSpec.parse(args)
	if err != nil {
		return nil, err
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	if a.has("abort") { // Dolt ignores a branch given with it
		err := d.updateBranchWith(ctx, func() error { return d.AbortMerge(ctx) })
		if errors.Is(err, verso.ErrNoMerge) {
			return nil, errors.New("fatal: There is no merge to abort")
		}
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(sql.Row{"", int64(0), int64(0), msgMergeAbort}), nil
	}
	switch {
	case len(a.pos) == 0:
		return nil, errors.New("error: Please specify a branch to merge")
	case len(a.pos) > 1:
		return nil, errors.New("Error: Dolt does not support merging from multiple commits. You probably meant to checkout one and then merge from the other.")
	case a.has("no-ff") && a.has("ff-only"):
		return nil, errors.New("error: Flags '--ff-only' and '--no-ff' cannot be used together")
	case a.has("squash") && a.has("no-ff"):
		return nil, errors.New("error: Flags '--squash' and '--no-ff' cannot be used together")
	}
	// The session's identity unless --author; a merge that makes no
	// commit (a fast-forward) needs none.
	me, idErr := commitIdentity(ctx)
	opts := verso.MergeOptions{
		Author: me, Message: a.vals["message"],
		NoFF: a.has("no-ff"), FFOnly: a.has("ff-only"), Squash: a.has("squash"), NoCommit: a.has("no-commit"),
		Default: columnDefault(ctx),
		// An autocommit merge with conflicts would be rolled back at the
		// statement's end, as Dolt's transaction commit refuses them.
		RefuseConflicts: autocommitting(ctx) && !conflictsAllowed(ctx),
	}
	if db, err := currentDatabase(ctx); err == nil {
		opts.Verify = mergeVerifier(ctx, db)
	}
	if a.has("author") {
		if opts.Author, err = parseAuthor(a.vals["author"]); err != nil {
			return nil, err
		}
	}
	row, err := runMerge(ctx, d, a.pos[0], opts, idErr)
	if err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(row), nil
}

// runMerge merges spec into d's branch and returns dolt_merge's result
// row (hash, fast_forward, conflicts, message), with Dolt's warnings, or
// its error. idErr is the session's identity error, shown if the merge
// needs an author.
func runMerge(ctx *sql.Context, d *txDB, spec string, opts verso.MergeOptions, idErr error) (sql.Row, error) {
	var res *verso.MergeResult
	err := d.updateBranchWith(ctx, func() (err error) {
		res, err = d.Merge(ctx, spec, opts)
		return err
	})
	switch {
	case errors.Is(err, verso.ErrNoAuthor) && idErr != nil:
		return nil, idErr
	case errors.Is(err, verso.ErrNotFastForward):
		return nil, errors.New("fatal: Not possible to fast-forward, aborting")
	case errors.Is(err, verso.ErrConflictsRefused):
		// Dolt's merge warns before its transaction's commit fails.
		ctx.Warn(1105, "merge has unresolved conflicts or constraint violations")
		return nil, errAutocommitConflicts
	case err != nil:
		return nil, mergeError("dolt_merge", err)
	case res.UpToDate:
		// Dolt tells the head itself from an ancestor of it (in words
		// of its own), with no hash and the message as a warning too.
		msg := msgUpToDate
		if res.Theirs.Addr != res.Commit.Addr {
			msg = msgAhead
		}
		ctx.Warn(1105, "%s", msg)
		return sql.Row{"", int64(0), int64(0), msg}, nil
	case res.Unmerged():
		// The transaction's end commits them, or undoes the merge.
		d.conflictedMerge = true
		ctx.Warn(1105, "merge has unresolved conflicts or constraint violations")
		return sql.Row{"", int64(0), int64(1), msgConflicts}, nil
	case res.FastForward:
		// A squash that could fast-forward names theirs, as Dolt's does.
		return sql.Row{res.Theirs.Addr.String(), int64(1), int64(0), msgMergeOK}, nil
	case res.Commit == nil:
		return sql.Row{"", int64(0), int64(0), msgMergeOK}, nil
	}
	return sql.Row{res.Commit.Addr.String(), int64(0), int64(0), msgMergeOK}, nil
}

var pickSpec = optSpec{proc: "dolt_cherry_pick", opts: map[string]bool{"abort": false, "allow-empty": false}}

// doltCherryPick applies the changes of one commit (from its first parent)
// to the branch and commits them with the commit's message and author. With
// conflicts, the working set holds them with the cherry-pick in progress
// (no commit is made): resolve them and dolt_commit, or run
// dolt_cherry_pick('--abort').
func doltCherryPick(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := pickSpec.parse(args)
	if err != nil {
		return nil, err
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	if a.has("abort") {
		err := d.updateBranchWith(ctx, func() error { return d.AbortCherryPick(ctx) })
		if errors.Is(err, verso.ErrNoCherryPick) {
			return nil, errors.New("error: There is no cherry-pick merge to abort")
		}
		if err != nil {
			return nil, err
		}
		return sql.RowsToRowIter(sql.Row{"", int64(0), int64(0), int64(0)}), nil
	}
	switch {
	case len(a.pos) == 0 || a.pos[0] == "":
		return nil, errors.New("cannot cherry-pick empty string")
	case len(a.pos) > 1:
		return nil, errors.New("cherry-picking multiple commits is not supported yet.")
	}
	me, idErr := commitIdentity(ctx)
	opts := verso.CherryPickOptions{
		Committer: me, AllowEmpty: a.has("allow-empty"), Default: columnDefault(ctx),
		RefuseConflicts: autocommitting(ctx) && !conflictsAllowed(ctx),
	}
	var res *verso.MergeResult
	err = d.updateBranchWith(ctx, func() (err error) {
		res, err = d.CherryPick(ctx, a.pos[0], opts)
		return err
	})
	switch {
	case errors.Is(err, verso.ErrNoAuthor) && idErr != nil:
		return nil, idErr
	case errors.Is(err, verso.ErrConflictsRefused):
		return nil, errAutocommitConflicts
	case err != nil:
		return nil, applyError("dolt_cherry_pick", err)
	case len(res.Conflicts) > 0:
		// The transaction's end commits them, or undoes the cherry-pick.
		d.conflictedMerge = true
		return sql.RowsToRowIter(sql.Row{"", int64(len(res.Conflicts)), int64(0), int64(0)}), nil
	}
	return sql.RowsToRowIter(sql.Row{res.Commit.Addr.String(), int64(0), int64(0), int64(0)}), nil
}

// applyError words the engine's refusal of a cherry-pick or revert (proc)
// as Dolt's procedures do.
func applyError(proc string, err error) error {
	var ae *verso.ApplyError
	var unc *verso.UncommittedError
	var drop *tablemerge.DropConflictError
	var rc *verso.RevertConflictError
	pick := proc == "dolt_cherry_pick"
	switch {
	case (errors.As(err, &unc) || errors.Is(err, verso.ErrMergeActive)) && pick:
		return errors.New("cannot cherry-pick with uncommitted changes")
	case errors.As(err, &unc) || errors.Is(err, verso.ErrMergeActive):
		return errors.New("error: Your local changes would be overwritten by revert.\nhint: Please commit your changes before you revert.")
	case errors.As(err, &drop):
		return fmt.Errorf("merge aborted: schema conflict found for table %s \n please resolve schema conflicts before merging: \n\ttable was modified in one branch and deleted in the other", drop.Table)
	case errors.As(err, &rc):
		return fmt.Errorf("%s: reverting %s conflicts with later changes to %s; nothing was changed: revert those rows by hand and commit", proc, rc.Spec, strings.Join(rc.Tables, ", "))
	case !errors.As(err, &ae):
		return mergeError(proc, err)
	case errors.Is(err, verso.ErrRootCommit) && pick:
		return errors.New("cherry-picking a commit without parents is not supported")
	case errors.Is(err, verso.ErrRootCommit):
		return fmt.Errorf("cannot revert commit with no parents (%s)", ae.Commit)
	case errors.Is(err, verso.ErrMergeCommit):
		return errors.New("cherry-picking a merge commit is not supported")
	case errors.Is(err, verso.ErrEmptyCommit):
		return errors.New("The previous cherry-pick commit is empty. Use --allow-empty to cherry-pick empty commits.")
	case errors.Is(err, verso.ErrAlreadyApplied) && pick:
		return errors.New("no changes were made, nothing to commit")
	case errors.Is(err, verso.ErrAlreadyApplied):
		return errors.New("nothing to commit")
	}
	return mergeError(proc, err)
}

var revertSpec = optSpec{proc: "dolt_revert", opts: map[string]bool{"author": true}}

// doltRevert commits, for each commit named, the inverse of its changes
// (from its first parent) on the branch, with the message Revert
// "<message>": one commit each, in the order given, all or none. Its row
// names the last.
func doltRevert(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := revertSpec.parse(args)
	if err != nil {
		return nil, err
	}
	if len(a.pos) == 0 {
		return nil, errors.New("error: nothing specified to revert")
	}
	var author commitgraph.Signature
	if a.has("author") {
		if author, err = parseAuthor(a.vals["author"]); err != nil {
			return nil, err
		}
	} else if author, err = commitIdentity(ctx); err != nil {
		return nil, err
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	var made []*verso.Commit
	err = d.updateBranchWith(ctx, func() (err error) {
		made, err = d.Revert(ctx, a.pos, author, columnDefault(ctx))
		return err
	})
	if err != nil {
		return nil, applyError("dolt_revert", err)
	}
	return sql.RowsToRowIter(sql.Row{made[len(made)-1].Addr.String(), int64(0), int64(0), int64(0)}), nil
}
