package sqlserver

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/doltargs"
)

// dolt_add and dolt_commit.
//
//	CALL dolt_add('t1', 't2') | dolt_add('.') | dolt_add('-A')   -> status
//	CALL dolt_commit('-m', 'msg' [, '-a' | '-A'] [, '--allow-empty' |
//	     '--skip-empty'] [, '--author', 'Name <email>'] [, '--date', d]
//	     [, '--amend'])                                          -> hash

// commitProcedures are the procedures that stage and commit.
var commitProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_add", Schema: statusSchema, Function: doltAdd},
	{Name: "dolt_commit", Schema: hashSchema, Function: doltCommit},
}

var addSpec = procSpec("dolt_add", doltargs.Add())

func doltAdd(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := addSpec.parse(args)
	if err != nil {
		return nil, err
	}
	all := a.has("all")
	var names []string
	for _, p := range a.pos {
		if p == "." {
			all = true
		} else {
			names = append(names, p)
		}
	}
	if !all && len(names) == 0 {
		return nil, errors.New("Nothing specified, nothing added. Maybe you wanted to say 'dolt add .'?")
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	err = d.updateBranchWith(ctx, func() error {
		if all {
			return d.StageAll(ctx)
		}
		return d.Stage(ctx, names...)
	})
	if err != nil {
		return nil, stagingError("dolt_add", err)
	}
	return statusRow(0), nil
}

// stagingError words the engine's refusal of a staging call (Stage,
// Reset, CheckoutTables) for proc.
func stagingError(proc string, err error) error {
	var nt *verso.TableNotFoundError
	if errors.As(err, &nt) {
		return fmt.Errorf("%s: no table %q; SHOW TABLES lists the tables", proc, nt.Table)
	}
	return engineError(err)
}

// procBranch returns the transaction's view of the session's current
// branch, for a procedure that changes it.
func procBranch(ctx *sql.Context) (*txDB, error) {
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	branch, err := db.writableBranch()
	if err != nil {
		return nil, err
	}
	return txDatabase(ctx, db.st, branch)
}

var commitSpec = procSpec("dolt_commit", doltargs.Commit())

func doltCommit(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := commitSpec.parse(args)
	if err != nil {
		return nil, err
	}
	if len(a.pos) > 0 {
		return nil, errPositional("commit", a.pos)
	}
	if a.has("allow-empty") && a.has("skip-empty") {
		return nil, errors.New("error: cannot use both --allow-empty and --skip-empty")
	}
	meta := commitgraph.Meta{Message: a.vals["message"]}
	if a.has("author") {
		// Dolt records one identity per commit (dolt_log's committer):
		// --author replaces the session's.
		if meta.Author, err = parseAuthor(a.vals["author"]); err != nil {
			return nil, err
		}
	} else if meta.Author, err = commitIdentity(ctx); err != nil {
		return nil, err
	}
	if a.has("date") {
		if meta.Time, err = parseCommitDate(a.vals["date"]); err != nil {
			return nil, err
		}
	}
	if !a.has("message") && !a.has("amend") {
		return nil, errors.New("Must provide commit message.")
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	made, err := d.CommitChanges(ctx, verso.CommitOptions{
		Message: a.vals["message"], Author: meta.Author, Time: meta.Time,
		StageAll: a.has("ALL"), StageTracked: a.has("all"),
		AllowEmpty: a.has("allow-empty"), SkipEmpty: a.has("skip-empty"), Amend: a.has("amend"),
	})
	d.writers = map[string]*tableWriter{}
	switch {
	case errors.Is(err, verso.ErrNothingToCommit):
		return nil, errors.New("nothing to commit")
	case errors.Is(err, verso.ErrUnresolvedConflicts):
		ts, _ := verso.ConflictedTables(ctx, d.Root())
		return nil, errConflicts(ts)
	case errors.Is(err, verso.ErrReadOnly):
		return nil, fmt.Errorf("verso: %s is a read-only revision", d.Branch())
	case errors.Is(err, verso.ErrAmendRoot):
		return nil, errors.New("dolt_commit --amend: HEAD is the root commit, which cannot be amended")
	case err != nil:
		return nil, engineError(err)
	}
	if made == nil {
		return sql.RowsToRowIter(sql.Row{nil}), nil
	}
	return sql.RowsToRowIter(sql.Row{made.Addr.String()}), nil
}

// errPositional is Dolt's refusal of positional arguments by a command
// that takes none.
func errPositional(cmd string, pos []string) error {
	return fmt.Errorf("error: %s does not take positional arguments, but found %d: %s", cmd, len(pos), strings.Join(pos, ", "))
}

// parseAuthor parses "Name <email>".
func parseAuthor(s string) (commitgraph.Signature, error) {
	name, email, err := doltargs.ParseAuthor(s)
	if err != nil {
		return commitgraph.Signature{}, err
	}
	return commitgraph.Signature{Name: name, Email: email}, nil
}

// parseCommitDate parses --date; a time without a zone is UTC.
func parseCommitDate(s string) (time.Time, error) {
	t, err := doltargs.ParseDate(s)
	if err != nil {
		return time.Time{}, err
	}
	return t, nil
}
