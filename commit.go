package verso

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
)

// CommitOptions say what a commit to a branch's history takes (as
// dolt_commit's flags do).
type CommitOptions struct {
	Message string
	Author  commitgraph.Signature // who; required
	// Committer is who makes the commit when it is not the author (zero:
	// the author), as Dolt records @@dolt_committer_name beside --author.
	Committer Signature
	// Time is the commit's time; zero for now.
	Time time.Time
	// AuthorTime is when the author made the change, when not Time (zero:
	// Time), as Dolt records @@dolt_author_date.
	AuthorTime time.Time
	// StageAll stages every change of the working root first, new tables
	// included (dolt_commit -A); StageTracked stages the changes of
	// tables the staged root has (-a).
	StageAll, StageTracked bool
	// AllowEmpty makes a commit even when nothing is staged; SkipEmpty
	// makes none then, without an error. Without either, nothing staged
	// is ErrNothingToCommit.
	AllowEmpty, SkipEmpty bool
	// Force commits while the working root holds constraint violations
	// (dolt_commit --force); they stay in the working root. Conflicts and
	// schema conflicts refuse the commit all the same.
	Force bool
	// Amend replaces the branch's head commit (keeping its message unless
	// Message is given) with one of the same parents; amending the root
	// commit makes a new root commit.
	Amend bool
}

var (
	// ErrNothingToCommit is returned by CommitChanges when nothing is
	// staged.
	ErrNothingToCommit = errors.New("nothing to commit: no changes are staged; stage them (CommitOptions.StageAll or StageTracked, or dolt_add), or allow an empty commit")
	// ErrUnresolvedConflicts is returned by CommitChanges while the
	// working root holds merge conflicts.
	ErrUnresolvedConflicts = errors.New("cannot commit: unresolved merge conflicts")
	// ErrSchemaConflicts is returned by CommitChanges while the working
	// root holds schema conflicts of a merge.
	ErrSchemaConflicts = errors.New("cannot commit: unresolved schema conflicts")
	// ErrConstraintViolations is returned by CommitChanges while the
	// working root holds constraint violations, unless Force.
	ErrConstraintViolations = errors.New("cannot commit: unresolved constraint violations")
)

// UnmergedError is a commit refused for what a merge left unresolved:
// Err is ErrUnresolvedConflicts, ErrSchemaConflicts or
// ErrConstraintViolations, Tables the tables concerned.
type UnmergedError struct {
	Err    error
	Tables []string
}

func (e *UnmergedError) Error() string { return e.Err.Error() + " in " + strings.Join(e.Tables, ", ") }

// Unwrap returns Err.
func (e *UnmergedError) Unwrap() error { return e.Err }

// checkUnmerged refuses a commit of a working root with conflicts, schema
// conflicts, or (unless force) constraint violations.
func checkUnmerged(ctx context.Context, working RootValue, force bool) error {
	for _, c := range []struct {
		list func(context.Context, RootValue) ([]string, error)
		err  error
	}{{ConflictedTables, ErrUnresolvedConflicts}, {SchemaConflictedTables, ErrSchemaConflicts}, {ViolatedTables, ErrConstraintViolations}} {
		if force && c.err == ErrConstraintViolations {
			continue
		}
		ts, err := c.list(ctx, working)
		if err != nil {
			return err
		}
		if len(ts) > 0 {
			return &UnmergedError{Err: c.err, Tables: ts}
		}
	}
	return nil
}

// CommitChanges writes the transaction's writes into its branch's working
// set and commits the staged root (after staging, as opts say) as the
// branch's new head, in one durable step. It returns the commit, or nil
// when SkipEmpty found nothing to commit.
func (t *Txn) CommitChanges(ctx context.Context, opts CommitOptions) (*commitgraph.Commit, error) {
	if opts.Author.Name == "" || opts.Author.Email == "" {
		return nil, fmt.Errorf("%w (CommitOptions.Author)", ErrNoAuthor)
	}
	if opts.Message == "" && !opts.Amend {
		return nil, errors.New("verso: a commit needs a message")
	}
	if opts.AllowEmpty && opts.SkipEmpty {
		return nil, errors.New("verso: AllowEmpty and SkipEmpty contradict each other; give one")
	}
	var made *commitgraph.Commit
	err := t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		made = nil
		staged := s.Staged
		var err error
		switch {
		case opts.StageAll:
			staged, err = t.db.stageAll(ctx, s.Staged, s.Working)
		case opts.StageTracked:
			staged, err = stageTracked(ctx, s.Staged, s.Working)
		}
		if err != nil {
			return nil, err
		}
		if err := checkUnmerged(ctx, s.Working, opts.Force); err != nil {
			return nil, err
		}
		if staged, err = withoutConflicts(ctx, staged); err != nil {
			return nil, err
		}
		parents := []chunks.Address{s.Head.Addr}
		m := commitgraph.Meta{Author: opts.Author, Message: opts.Message, Time: opts.Time, AuthorTime: opts.AuthorTime}
		if opts.Committer != opts.Author {
			m.Committer = opts.Committer // zero: the author
		}
		if opts.Amend {
			parents = s.Head.Parents
			if opts.Message == "" {
				m.Message = s.Head.Meta.Message
			}
			// An amend is a new commit: made within the millisecond of
			// the one it replaces, with the same message and tree, it
			// would be that commit again (the same hash).
			if m.Time.IsZero() {
				m.Time = time.Now()
				if last := s.Head.Meta.Time; m.Time.UnixMilli() <= last.UnixMilli() {
					m.Time = last.Add(time.Millisecond)
				}
			}
		}
		if s.WS.Merge != nil && s.WS.Merge.Kind == commitgraph.KindMerge {
			parents = append(parents, s.WS.Merge.Commit) // a cherry-pick's has one
		}
		if staged.Address() == s.HeadRoot.Address() && s.WS.Merge == nil {
			switch {
			case opts.SkipEmpty: // an amend too, as Dolt's
				return nil, nil
			case !opts.AllowEmpty && !opts.Amend:
				return nil, ErrNothingToCommit
			}
		}
		if made, err = t.db.graph.WriteCommit(ctx, staged.Address(), parents, m); err != nil {
			return nil, err
		}
		return &BranchChange{Head: made.Addr, Working: s.Working, Staged: staged}, nil
	})
	if err != nil {
		return nil, err
	}
	return made, nil
}

// Log returns up to n commits (all if n <= 0) of the history of the
// revision rev (a branch, a tag, a hash, "main~2"; "" for the default
// branch), newest first, in the order of their heights.
func (db *DB) Log(ctx context.Context, rev string, n int) ([]*commitgraph.Commit, error) {
	if rev == "" {
		rev = db.DefaultBranch()
	}
	c, err := db.resolve(ctx, rev, db.DefaultBranch())
	if err != nil {
		return nil, err
	}
	it := db.graph.Log(ctx, c.Addr)
	var out []*commitgraph.Commit
	for (n <= 0 || len(out) < n) && it.Next(ctx) {
		out = append(out, it.Commit())
	}
	return out, it.Err()
}
