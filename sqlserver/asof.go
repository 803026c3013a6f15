package sqlserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
)

// AS OF: SELECT ... FROM t AS OF 'ref', SHOW TABLES AS OF, DESCRIBE t AS
// OF. The revision is a commit spec (a hash, a branch, a tag, HEAD~2,
// main^2: see commitgraph.Resolve, HEAD being the session's branch) or a
// time (a DATETIME value, or a string that is no ref and reads as one),
// which names the newest commit of the branch's history made at or before
// it. The table is read from that commit, read-only. Before the branch's
// first commit there is no table, as Dolt answers. A revision that names
// nothing fails in Dolt's words (revisionError).

var _ sql.VersionedDatabase = (*Database)(nil)

// GetTableInsensitiveAsOf implements sql.VersionedDatabase.
// An AS OF of lockMarker is no revision but a locking read (lockplan.go).
func (db *Database) GetTableInsensitiveAsOf(ctx *sql.Context, name string, asOf interface{}) (sql.Table, bool, error) {
	if c, ok := markedClause(asOf); ok {
		t, ok, err := db.GetTableInsensitive(ctx, name)
		if vt, isOurs := t.(*Table); isOurs && ok && !vt.db.temp && vt.db.rev == nil {
			return vt.withLock(c), true, nil
		}
		return t, ok, err
	}
	rev, err := db.asOf(ctx, asOf)
	if errors.Is(err, verso.ErrNoCommitThatOld) {
		return nil, false, nil // no table is that old, as Dolt answers
	}
	if err != nil {
		return nil, false, err
	}
	return rev.GetTableInsensitive(ctx, name)
}

// GetTableNamesAsOf implements sql.VersionedDatabase.
func (db *Database) GetTableNamesAsOf(ctx *sql.Context, asOf interface{}) ([]string, error) {
	if _, ok := markedClause(asOf); ok {
		return db.GetTableNames(ctx)
	}
	rev, err := db.asOf(ctx, asOf)
	if errors.Is(err, verso.ErrNoCommitThatOld) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return rev.GetTableNames(ctx)
}

// asOf returns the read-only revision of db that asOf names.
func (db *Database) asOf(ctx *sql.Context, asOf interface{}) (*Database, error) {
	c, err := db.resolveAsOf(ctx, asOf)
	if err != nil {
		return nil, err
	}
	return &Database{p: db.p, st: db.st, name: db.name, branch: db.branch, rev: c}, nil
}

// asOfTimeLayouts are the strings AS OF reads as times.
var asOfTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05", "2006-01-02",
}

func (db *Database) resolveAsOf(ctx *sql.Context, asOf interface{}) (*commitgraph.Commit, error) {
	switch v := asOf.(type) {
	case time.Time:
		return db.commitAt(ctx, v)
	case string:
		c, err := db.st.graph.Resolve(ctx, v, db.branch)
		if err == nil {
			return c, nil
		}
		if errors.Is(err, commitgraph.ErrBadRevision) {
			for _, l := range asOfTimeLayouts {
				if t, terr := time.Parse(l, v); terr == nil {
					return db.commitAt(ctx, t)
				}
			}
		}
		return nil, revisionError(v, err)
	case []byte:
		return db.resolveAsOf(ctx, string(v))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return db.resolveAsOf(ctx, fmt.Sprint(v)) // a name, as Dolt reads it
	case nil:
		return nil, errors.New("AS OF NULL: give a branch, a tag, a commit hash, a spec such as HEAD~2, or a time")
	}
	return nil, fmt.Errorf("AS OF %v: a revision is a string (a branch, tag, hash or spec) or a time, not a %T", asOf, asOf)
}

// commitAt returns the newest commit of the branch's history made at or
// before t; verso.ErrNoCommitThatOld if there is none.
func (db *Database) commitAt(ctx *sql.Context, t time.Time) (*commitgraph.Commit, error) {
	var start *commitgraph.Commit
	if db.rev != nil {
		start = db.rev
	} else {
		c, err := db.st.graph.HeadCommit(ctx, db.branch)
		if err != nil {
			return nil, err
		}
		start = c
	}
	return db.st.db.CommitAt(ctx, start, t)
}
