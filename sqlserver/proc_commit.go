package sqlserver

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/chunks"
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
	{Name: "dolt_commit_hash_out", Schema: hashSchema, Function: doltCommitHashOut},
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
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	var missing []string
	for _, n := range names {
		if ok, err := d.hasItemNamed(ctx, n); err != nil {
			return nil, err
		} else if !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("error: the table(s) %s do not exist", strings.Join(missing, ", "))
	}
	err = d.updateBranchWith(ctx, func() error {
		switch {
		case all:
			return d.StageAll(ctx)
		case a.has("force"):
			return d.StageForced(ctx, names...)
		}
		return d.Stage(ctx, names...)
	})
	var nt *verso.TableNotFoundError
	if errors.As(err, &nt) {
		return nil, fmt.Errorf("error: the table(s) %s do not exist", nt.Table)
	}
	if err != nil {
		return nil, stagingError("dolt_add", err)
	}
	return statusRow(0), nil
}

// hasItemNamed reports whether the item name (a table, ...), spelled
// exactly so (as Dolt matches names in dolt_add), is in the
// transaction's working root, the staged root or the head's.
func (d *txDB) hasItemNamed(ctx *sql.Context, name string) (bool, error) {
	head, ws, err := d.st.graph.BranchState(ctx, d.Branch())
	if err != nil {
		return false, err
	}
	if ok, err := verso.HasItem(ctx, d.Root(), name); err != nil || ok {
		return ok, err
	}
	for _, a := range []chunks.Address{ws.Staged, head.Root} {
		r, err := d.st.graph.OpenRoot(ctx, a)
		if err != nil {
			return false, err
		}
		if ok, err := verso.HasItem(ctx, r, name); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
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
	made, err := commitArgs(ctx, args)
	if err != nil {
		return nil, err
	}
	if made == nil { // --skip-empty: no commit, an empty result as Dolt's
		return sql.RowsToRowIter(), nil
	}
	return sql.RowsToRowIter(sql.Row{made.Addr.String()}), nil
}

// doltCommitHashOut is dolt_commit with the hash also set in its first
// argument, an OUT parameter (” when --skip-empty made no commit).
func doltCommitHashOut(ctx *sql.Context, hash *string, args ...string) (sql.RowIter, error) {
	made, err := commitArgs(ctx, args)
	if err != nil {
		return nil, err
	}
	if made == nil {
		*hash = ""
		return sql.RowsToRowIter(), nil
	}
	*hash = made.Addr.String()
	return sql.RowsToRowIter(sql.Row{*hash}), nil
}

// commitArgs commits as dolt_commit's args say; nil when --skip-empty
// found nothing to commit.
func commitArgs(ctx *sql.Context, args []string) (*commitgraph.Commit, error) {
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
	// As Dolt's: the author is --author's, else @@dolt_author_name and
	// _email's, else the committer's; the committer is the session's
	// (@@dolt_committer_name, ...), else --author's, else the SQL user.
	if a.has("author") {
		if meta.Author, err = parseAuthor(a.vals["author"]); err != nil {
			return nil, err
		}
		meta.Committer = meta.Author
		if sessionCommitter(ctx) {
			if meta.Committer, err = commitIdentity(ctx); err != nil {
				return nil, err
			}
		}
	} else {
		if meta.Committer, err = commitIdentity(ctx); err != nil {
			return nil, err
		}
		meta.Author = authorIdentity(ctx, meta.Committer)
	}
	if meta.Time, meta.AuthorTime, err = commitDates(ctx, a); err != nil {
		return nil, err
	}
	switch {
	case !a.has("message") && !a.has("amend"):
		return nil, errors.New("Must provide commit message.")
	case a.has("message") && a.vals["message"] == "":
		return nil, errors.New("Aborting commit due to empty commit message.")
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	made, err := d.CommitChanges(ctx, verso.CommitOptions{
		Message: a.vals["message"], Author: meta.Author, Committer: meta.Committer, Time: meta.Time, AuthorTime: meta.AuthorTime,
		StageAll: a.has("ALL"), StageTracked: a.has("all"),
		AllowEmpty: a.has("allow-empty"), SkipEmpty: a.has("skip-empty"), Amend: a.has("amend"),
		Force: a.has("force"),
	})
	d.writers = map[string]*tableWriter{}
	var um *verso.UnmergedError
	switch {
	case errors.Is(err, verso.ErrNothingToCommit):
		return nil, errors.New("nothing to commit")
	case errors.As(err, &um) && errors.Is(err, verso.ErrUnresolvedConflicts):
		return nil, errConflicts(um.Tables)
	case errors.As(err, &um) && errors.Is(err, verso.ErrSchemaConflicts):
		return nil, fmt.Errorf("error: the table(s) %s have schema conflicts", strings.Join(um.Tables, ", "))
	case errors.As(err, &um) && errors.Is(err, verso.ErrConstraintViolations):
		return nil, fmt.Errorf("error: the table(s) %s have constraint violations", strings.Join(um.Tables, ", "))
	case errors.Is(err, verso.ErrReadOnly):
		return nil, fmt.Errorf("verso: %s is a read-only revision", d.Branch())
	case err != nil:
		return nil, engineError(err)
	}
	d.conflictedMerge = false // the merge is committed
	return made, nil
}

// errPositional is Dolt's refusal of positional arguments by a command
// that takes none.
func errPositional(cmd string, pos []string) error {
	return fmt.Errorf("error: %s does not take positional arguments, but found %d: %s", cmd, len(pos), strings.Join(pos, ", "))
}

// parseAuthor parses "Name <email>" as Dolt does.
func parseAuthor(s string) (commitgraph.Signature, error) {
	name, email, err := doltargs.ParseAuthor(s)
	if err == nil {
		err = doltargs.CheckAuthor(email)
	}
	if err != nil {
		return commitgraph.Signature{}, err
	}
	return commitgraph.Signature{Name: name, Email: email}, nil
}

// sessionCommitter reports whether the session names a committer
// (@@dolt_committer_name or @@dolt_committer_email).
func sessionCommitter(ctx *sql.Context) bool {
	for _, n := range []string{userNameVar, userEmailVar} {
		if v, err := ctx.GetSessionVariable(ctx, n); err == nil {
			if s, _ := v.(string); s != "" {
				return true
			}
		}
	}
	return false
}

// authorIdentity returns the session's author: @@dolt_author_name and
// @@dolt_author_email, each falling back to the committer's.
func authorIdentity(ctx *sql.Context, committer commitgraph.Signature) commitgraph.Signature {
	sig := committer
	if v, err := ctx.GetSessionVariable(ctx, authorNameVar); err == nil {
		if s, _ := v.(string); s != "" {
			sig.Name = s
		}
	}
	if v, err := ctx.GetSessionVariable(ctx, authorEmailVar); err == nil {
		if s, _ := v.(string); s != "" {
			sig.Email = s
		}
	}
	return sig
}

// commitDates returns the commit's time and its author time (zero: now),
// as Dolt's: the author time is --date's, else @@dolt_author_date's; the
// commit's time is @@dolt_committer_date's, else --date's. A variable
// set to ” is unset.
func commitDates(ctx *sql.Context, a *procArgs) (committed, authored time.Time, err error) {
	var flag time.Time
	if a.has("date") {
		if flag, err = parseCommitDate(a.vals["date"]); err != nil {
			return
		}
	}
	authored, committed = flag, flag
	if s := sessionString(ctx, authorDateVar); s != "" && !a.has("date") {
		if authored, err = parseCommitDate(s); err != nil {
			return
		}
	}
	if s := sessionString(ctx, committerDateVar); s != "" {
		if committed, err = parseCommitDate(s); err != nil {
			return
		}
	}
	if authored.IsZero() && !committed.IsZero() {
		authored = time.Now() // authored now, committed at the date given
	}
	return committed, authored, nil
}

// sessionString reads a string session variable ("" if unset).
func sessionString(ctx *sql.Context, name string) string {
	v, err := ctx.GetSessionVariable(ctx, name)
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}

// parseCommitDate parses --date; a time without a zone is UTC.
func parseCommitDate(s string) (time.Time, error) {
	t, err := doltargs.ParseDate(s)
	if err != nil {
		return time.Time{}, err
	}
	return t, nil
}
