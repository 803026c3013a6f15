package sqlserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Concurrent transactions merge at commit: the committing transaction's
// changes (from its snapshot, base, to its root, theirs) are applied to the
// working root as it is now (ours). A table changed on one side only is
// taken from that side (commitgraph.MergeRoots). A table both changed gets
// the committing transaction's row changes replayed on the current table
// through a tables.Editor, so indexes, unique keys and the auto-increment
// counter stay right; a row that both changed differently, a unique key
// that both took, or a schema change on either side is a conflict, reported
// as a serialization failure that the client can retry.

// errSerialization returns the engine's serialization failure
// (ER_LOCK_DEADLOCK, 1213), as Dolt reports a transaction that conflicts
// with a committed one.
func errSerialization(format string, args ...any) error {
	return sql.ErrLockDeadlock.New("this transaction conflicts with a committed transaction from another client: " + fmt.Sprintf(format, args...))
}

// mergeRoots merges theirs (the committing transaction) into ours.
func mergeRoots(ctx context.Context, st *dbState, base, ours, theirs commitgraph.RootValue) (commitgraph.RootValue, error) {
	// The resolver's error is returned as is: MergeRoots wraps it, and the
	// engine recognizes a serialization failure only unwrapped.
	var failed error
	events := false // both changed the event log: mergeEvents below
	merged, err := commitgraph.MergeRoots(ctx, base, ours, theirs, func(ctx context.Context, c commitgraph.RootConflict) (addr chunks.Address, keep bool, err error) {
		defer func() { failed = err }()
		name, isTable := strings.CutPrefix(c.Name, tablePrefix)
		switch {
		case strings.HasPrefix(c.Name, eventindex.NamePrefix):
			events = true
			return c.Ours, c.InOurs, nil
		case !isTable:
			return chunks.Address{}, false, errSerialization("both changed %q", c.Name)
		case !c.InBase:
			return chunks.Address{}, false, errSerialization("both created table %q", name)
		case !c.InOurs || !c.InTheirs:
			return chunks.Address{}, false, errSerialization("table %q was dropped on one side and changed on the other", name)
		}
		addr, err = mergeTable(ctx, st, name, c.Base, c.Ours, c.Theirs)
		return addr, err == nil, err
	})
	if err != nil && failed != nil {
		return merged, failed
	}
	if err == nil && events {
		return mergeEvents(ctx, st, base, ours, theirs, merged)
	}
	return merged, err
}

// mergeTable replays the row changes from base to theirs on ours.
func mergeTable(ctx context.Context, st *dbState, name string, base, ours, theirs chunks.Address) (chunks.Address, error) {
	ns := st.graph.NodeStore()
	bt, err := tables.Load(ctx, ns, base)
	if err != nil {
		return chunks.Address{}, err
	}
	ot, err := tables.Load(ctx, ns, ours)
	if err != nil {
		return chunks.Address{}, err
	}
	tt, err := tables.Load(ctx, ns, theirs)
	if err != nil {
		return chunks.Address{}, err
	}
	bs := tables.EncodeSchema(bt.Schema())
	if !bytes.Equal(bs, tables.EncodeSchema(ot.Schema())) || !bytes.Equal(bs, tables.EncodeSchema(tt.Schema())) {
		return chunks.Address{}, errSerialization("the schema of table %q changed", name)
	}
	keyless := bt.Schema().Keyless()
	ed := ot.Edit()
	ed.KeepZero(true) // rows keep the values their transaction gave them
	ed.SetAutoIncrement(tt.AutoIncrement())
	d := prolly.NewDiffer(bt.Rows(), tt.Rows())
	for d.Next(ctx) {
		df := d.Diff()
		if keyless {
			err = mergeKeyless(ctx, ed, bt, tt, df)
		} else {
			err = mergeRow(ctx, name, ed, ot, bt, tt, df)
		}
		if err != nil {
			var dup *tables.DuplicateKeyError
			if errors.As(err, &dup) {
				return chunks.Address{}, errSerialization("both wrote key %s of index %s in table %q", dup.Key, dup.Index, name)
			}
			if errors.Is(err, tables.ErrRowNotFound) {
				return chunks.Address{}, errSerialization("both changed a row of table %q", name)
			}
			return chunks.Address{}, err
		}
	}
	if err := d.Err(); err != nil {
		return chunks.Address{}, err
	}
	mt, err := ed.Table(ctx)
	if err != nil {
		return chunks.Address{}, err
	}
	return mt.Write(ctx)
}

// mergeRow applies one row change of a table with a primary key.
func mergeRow(ctx context.Context, name string, ed *tables.Editor, ot, bt, tt *tables.Table, df prolly.Diff) error {
	cur, inOurs, err := ot.Rows().Get(ctx, df.Key)
	if err != nil {
		return err
	}
	if inOurs == (df.To != nil) && bytes.Equal(cur, df.To) {
		return nil // the same change on both sides
	}
	if inOurs != (df.From != nil) || !bytes.Equal(cur, df.From) {
		return errSerialization("both changed the row with key %s in table %q", tables.KeyText(df.Key), name)
	}
	switch {
	case df.From == nil:
		row, _, err := tt.GetByKey(ctx, df.Key)
		if err != nil {
			return err
		}
		_, err = ed.Insert(ctx, row)
		return err
	case df.To == nil:
		row, _, err := bt.GetByKey(ctx, df.Key)
		if err != nil {
			return err
		}
		return ed.Delete(ctx, row)
	default:
		old, _, err := bt.GetByKey(ctx, df.Key)
		if err != nil {
			return err
		}
		row, _, err := tt.GetByKey(ctx, df.Key)
		if err != nil {
			return err
		}
		return ed.Update(ctx, old, row)
	}
}

// mergeKeyless applies the change in the number of copies of one row of a
// keyless table: rows are a bag, so both sides' inserts add up.
func mergeKeyless(ctx context.Context, ed *tables.Editor, bt, tt *tables.Table, df prolly.Diff) error {
	n0, row0, err := bt.Copies(ctx, df.Key)
	if err != nil {
		return err
	}
	n1, row1, err := tt.Copies(ctx, df.Key)
	if err != nil {
		return err
	}
	for ; n1 > n0; n0++ {
		if _, err := ed.Insert(ctx, row1); err != nil {
			return err
		}
	}
	for ; n0 > n1; n0-- {
		if err := ed.Delete(ctx, row0); err != nil {
			return err
		}
	}
	return nil
}
