package sqlserver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/systables"
)

// Errors in Dolt's words. Dolt's procedures answer with their own
// messages (most without the procedure's name), which scripts written
// for Dolt match; verso answers with the same ones where it refuses the
// same thing (testdata/doltcorpus holds Dolt's answers).

// revisionError words the failure to resolve the revision spec as Dolt
// does (systables.RevisionError: the system tables answer the same).
func revisionError(spec string, err error) error { return systables.RevisionError(spec, err) }

// resolveRevision resolves spec in db, failing in Dolt's words.
func resolveRevision(ctx *sql.Context, db *Database, spec string) (*commitgraph.Commit, error) {
	c, err := resolveRef(ctx, db, spec)
	if err != nil {
		return nil, revisionError(spec, err)
	}
	return c, nil
}

// Refusals of dolt_branch, dolt_checkout and dolt_tag (proc_branch.go), as
// Dolt words them.
var (
	errInvalidUsage    = errors.New("error: invalid usage")
	errEmptyBranchName = errors.New("error: cannot branch empty string")
	errEmptyCheckout   = errors.New("error: cannot checkout empty string")
	errDetachedHead    = errors.New("this operation is not supported while in a detached head state")
	errTagUsage        = errors.New("error: invalid argument, use 'dolt_tags' system table to list tags")
)

// errBranchExists is the refusal to create, copy or rename onto the
// existing branch name.
func errBranchExists(name string) error {
	return fmt.Errorf("fatal: A branch named '%s' already exists.", name)
}

// errDefaultBranch is the refusal to rename or delete (verb) the branch
// b, the default branch of the database db (.verso/HEAD, which Dolt keeps
// in its repo state).
func errDefaultBranch(verb, b, db string) error {
	return fmt.Errorf("unable to %s branch '%s', because it is the default branch for database '%s'; this can by changed on the command line, by stopping the sql-server, running `dolt checkout <another_branch> and restarting the sql-server", verb, b, db)
}

// errTablespec is the refusal to check out the table t, which the roots
// do not hold; Dolt prefixes "error: " only when the tables come from the
// working set's own roots, not from a revision.
func errTablespec(t string, fromRev bool) error {
	if fromRev {
		return fmt.Errorf("tablespec '%s' did not match any table(s) known to dolt", t)
	}
	return fmt.Errorf("error: tablespec '%s' did not match any table(s) known to dolt", t)
}

// detachedHeadError is dolt_checkout's refusal of a tag (tag) or a commit
// hash s, which would detach the session's head.
func detachedHeadError(s string, tag bool) error {
	if tag {
		return fmt.Errorf("dolt does not support a detached head state. To create a branch at this tag, run: \n\tCALL DOLT_CHECKOUT('%s', '-b', <new_branch_name>)", s)
	}
	return fmt.Errorf("dolt does not support a detached head state. To create a branch at this commit instead, run:\n\tCALL DOLT_CHECKOUT('%s', '-b', <new_branch_name>)", s)
}

// looksLikeHash reports whether s has the form of a commit hash, which
// Dolt checks before (and without) looking it up.
func looksLikeHash(s string) bool {
	return len(s) == 32 && strings.Trim(s, "0123456789abcdefghijklmnopqrstuv") == ""
}
