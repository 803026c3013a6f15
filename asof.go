package verso

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNoCommitThatOld is returned by CommitAt for a time before the first
// commit of the history.
var ErrNoCommitThatOld = errors.New("verso: the history has no commit that old")

// CommitAt returns the newest commit of start's history (start included)
// made at or before t: the revision a time names (AS OF a time).
func (db *DB) CommitAt(ctx context.Context, start *Commit, t time.Time) (*Commit, error) {
	it := db.graph.Log(ctx, start.Addr)
	for it.Next(ctx) {
		if c := it.Commit(); !c.Meta.Time.After(t) {
			return c, nil
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: %s (its first commit is newer)", ErrNoCommitThatOld, t.UTC().Format(time.RFC3339Nano))
}
