package verso

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tablemerge"
	"github.com/verso-db/verso/tables"
)

// Concurrent transactions merge at commit: the committing transaction's
// changes (from its snapshot, base, to its root, theirs) are applied to the
// working root as it is now (ours), by the same root-merge driver as
// branch merges (tablemerge.Merge). A table changed on one side only is
// taken from that side. A table both changed gets
// the committing transaction's row changes replayed on the current table
// through a tables.Editor, so indexes, unique keys and the auto-increment
// counter stay right. A row that both changed since the transaction's base
// of it (whatever the values: two increments that wrote the same number
// are still two), a unique key that both took, or a schema change on
// either side is a conflict, reported as a serialization failure that the
// client can retry. The base of a row the transaction locked is the
// version it adopted then (bases, adopt.go), so the rows it locked
// never conflict with the transactions it waited for.

// mergeRoots merges theirs (the committing transaction) into ours; bases
// holds the versions of rows the transaction adopted, per table (lower-case
// name) and key. It runs the one root-merge driver, tablemerge.Merge, with
// the transaction's own strategy: tables replay their row changes
// (mergeTable), the event log merges as mergeEvents says, and any other
// name both changed is a serialization failure.
func mergeRoots(ctx context.Context, db *DB, base, ours, theirs commitgraph.RootValue, bases Adopted) (commitgraph.RootValue, error) {
	merged := map[string]bool{}
	res, err := tablemerge.Merge(ctx, db.graph.NodeStore(), base, ours, theirs, tablemerge.Options{
		Collations:    db.Collations(),
		KeepConflicts: true, // a transaction may commit while a merge's conflicts are resolved
		PrefixMergers: map[string]tablemerge.PrefixMerger{
			commitgraph.EventsPrefix: func(ctx context.Context, _ *prolly.NodeStore, b, o, t, m commitgraph.RootValue) (commitgraph.RootValue, error) {
				return mergeEvents(ctx, db, b, o, t, m)
			},
		},
		Tables: func(ctx context.Context, name string, c commitgraph.RootConflict) (chunks.Address, error) {
			switch {
			case !c.InBase:
				return chunks.Address{}, errSerialization("both created table %q", name)
			case !c.InOurs || !c.InTheirs:
				return chunks.Address{}, errSerialization("table %q was dropped on one side and changed on the other", name)
			}
			merged[strings.ToLower(name)] = true
			return mergeTable(ctx, db, name, c.Base, c.Ours, c.Theirs, bases[strings.ToLower(name)])
		},
		Refuse: func(c commitgraph.RootConflict) error { return errSerialization("both changed %q", c.Name) },
	})
	if err != nil {
		// A serialization failure goes back as it is (the SQL layer reports
		// it as 1213), without the driver's wrapping.
		var se *SerializationError
		if errors.As(err, &se) {
			return commitgraph.RootValue{}, se
		}
		return commitgraph.RootValue{}, err
	}
	// The driver takes a table that both sides changed to the same value
	// as is, and a table only ours changed from ours: the first may hide
	// rows both wrote, the second rows the transaction adopted and then
	// changed back to its snapshot's version. Both go through mergeTable.
	return mergeUnmerged(ctx, db, base, ours, theirs, res.Root, merged, bases)
}

// mergeUnmerged merges the tables MergeRoots did not give to mergeTable
// that still need it (see mergeRoots) into out.
func mergeUnmerged(ctx context.Context, db *DB, base, ours, theirs, out commitgraph.RootValue, merged map[string]bool, bases Adopted) (commitgraph.RootValue, error) {
	var edits []commitgraph.RootEdit
	check := func(name string) error {
		if merged[strings.ToLower(name)] {
			return nil
		}
		merged[strings.ToLower(name)] = true
		b, inB, err := base.Get(ctx, commitgraph.TablePrefix+name)
		if err != nil {
			return err
		}
		o, inO, err := ours.Get(ctx, commitgraph.TablePrefix+name)
		if err != nil {
			return err
		}
		t, inT, err := theirs.Get(ctx, commitgraph.TablePrefix+name)
		if err != nil {
			return err
		}
		if !inB || !inO || !inT || o == b || (t == b && len(bases[strings.ToLower(name)]) == 0) {
			return nil
		}
		addr, err := mergeTable(ctx, db, name, b, o, t, bases[strings.ToLower(name)])
		if err != nil {
			return err
		}
		edits = append(edits, commitgraph.RootEdit{Name: commitgraph.TablePrefix + name, Addr: addr})
		return nil
	}
	// Tables both changed alike: in both diffs with equal results.
	ourChanges := map[string]chunks.Address{}
	if err := base.Diff(ctx, ours, func(c commitgraph.RootChange) error {
		if n, ok := strings.CutPrefix(c.Name, commitgraph.TablePrefix); ok && c.InTo {
			ourChanges[n] = c.To
		}
		return nil
	}); err != nil {
		return out, err
	}
	if err := base.Diff(ctx, theirs, func(c commitgraph.RootChange) error {
		if n, ok := strings.CutPrefix(c.Name, commitgraph.TablePrefix); ok && c.InTo && ourChanges[n] == c.To {
			return check(n)
		}
		return nil
	}); err != nil {
		return out, err
	}
	for name := range bases {
		exact, _, ok, err := FindTable(ctx, theirs, name)
		if err != nil {
			return out, err
		}
		if ok {
			if err := check(exact); err != nil {
				return out, err
			}
		}
	}
	if len(edits) == 0 {
		return out, nil
	}
	return out.Edit(ctx, edits...)
}

// mergeTable replays the row changes from base to theirs on ours; bases
// holds the versions of rows the transaction adopted, by key.
func mergeTable(ctx context.Context, db *DB, name string, base, ours, theirs chunks.Address, bases map[string]RowVersion) (chunks.Address, error) {
	bt, err := db.tableAt(ctx, base)
	if err != nil {
		return chunks.Address{}, err
	}
	ot, err := db.tableAt(ctx, ours)
	if err != nil {
		return chunks.Address{}, err
	}
	tt, err := db.tableAt(ctx, theirs)
	if err != nil {
		return chunks.Address{}, err
	}
	if !tables.SameSchema(bt, ot) || !tables.SameSchema(bt, tt) {
		return chunks.Address{}, errSerialization("the schema of table %q changed", name)
	}
	ed := ot.Edit()
	ed.KeepZero(true) // rows keep the values their transaction gave them
	if err := replayRows(ctx, name, ed, bt, ot, tt, bases); err != nil {
		return chunks.Address{}, err
	}
	mt, err := ed.Table(ctx)
	if err != nil {
		return chunks.Address{}, err
	}
	return mt.Write(ctx)
}

// replayRows replays the row changes from bt to tt (a transaction's
// snapshot of a table and its version of it) on the editor ed, whose rows
// are the table's current ones; ot is a table of the same schema, to
// decode them. bases holds the versions of rows the transaction adopted,
// by key. A row changed since the transaction's base of it, or a unique
// key taken meanwhile, is a serialization failure; on any error ed holds
// part of the changes, for the caller to roll back.
func replayRows(ctx context.Context, name string, ed *tables.Editor, bt, ot, tt *tables.Table, bases map[string]RowVersion) error {
	keyless := bt.Schema().Keyless()
	ed.SetAutoIncrement(tt.AutoIncrement())
	seen := 0 // adopted rows met in the diff
	d := prolly.NewDiffer(bt.Rows(), tt.Rows())
	for d.Next(ctx) {
		df := d.Diff()
		var err error
		if keyless {
			err = mergeKeyless(ctx, ed, bt, tt, df)
		} else {
			from := RowVersion{Val: df.From, OK: df.From != nil}
			if v, ok := bases[string(df.Key)]; ok {
				from = v
				seen++
			}
			err = mergeRow(ctx, name, ed, ot, tt, df.Key, from, RowVersion{Val: df.To, OK: df.To != nil})
		}
		if err != nil {
			return mergeFailure(name, err)
		}
	}
	if err := d.Err(); err != nil {
		return err
	}
	if seen < len(bases) {
		// Rows adopted and changed back to the snapshot's version are in
		// no diff of base and theirs.
		for k, from := range bases {
			key := []byte(k)
			bv, inB, err := bt.Rows().Get(ctx, key)
			if err != nil {
				return err
			}
			tv, inT, err := tt.Rows().Get(ctx, key)
			if err != nil {
				return err
			}
			if inB != inT || !bytes.Equal(bv, tv) {
				continue // in the diff
			}
			if err := mergeRow(ctx, name, ed, ot, tt, key, from, RowVersion{Val: tv, OK: inT}); err != nil {
				return mergeFailure(name, err)
			}
		}
	}
	return nil
}

// mergeFailure returns err, a failure to replay a row of table name, as
// the commit's error: a unique key or a row another transaction took or
// changed first is a serialization failure.
func mergeFailure(name string, err error) error {
	var dup *tables.DuplicateKeyError
	if errors.As(err, &dup) {
		return errSerialization("both wrote key %s of index %s in table %q", dup.Key, dup.Index, name)
	}
	if errors.Is(err, tables.ErrRowNotFound) {
		return errSerialization("both changed a row of table %q", name)
	}
	return err
}

// mergeRow applies the committing transaction's change of the row under
// key, from version from (its base of the row) to version to, to the
// editor's rows; ot, a table of their schema, decodes them.
func mergeRow(ctx context.Context, name string, ed *tables.Editor, ot, tt *tables.Table, key []byte, from, to RowVersion) error {
	if from.Equal(to) {
		return nil // the row was only adopted
	}
	cv, inOurs, err := ed.GetRaw(ctx, key)
	if err != nil {
		return err
	}
	if !from.Equal(RowVersion{Val: cv, OK: inOurs}) {
		return errSerialization("both changed the row with key %s in table %q", tables.KeyText(key), name)
	}
	var old, row []tables.Value
	if from.OK {
		if old, err = ot.Decode(ctx, key, cv); err != nil {
			return err
		}
	}
	if to.OK {
		if row, err = tt.Decode(ctx, key, to.Val); err != nil {
			return err
		}
	}
	switch {
	case !from.OK:
		_, err = ed.Insert(ctx, row)
		return err
	case !to.OK:
		return ed.Delete(ctx, old)
	default:
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

// mergeEvents merges the event logs of a committing transaction (theirs,
// from its snapshot base) and of the working root it commits into (ours),
// when both appended or changed streams since: eventindex.Merge takes
// theirs' new events after ours' (renumbering their positions: the later
// committer's events come after the earlier one's). Two transactions that
// changed one stream (appends, metadata or deletes) conflict: the second
// commit fails with a serialization failure (1213), to be retried.
// merged is the root merged so far; the result holds the merged log.
func mergeEvents(ctx context.Context, db *DB, base, ours, theirs, merged commitgraph.RootValue) (commitgraph.RootValue, error) {
	l, err := mergeLogs(ctx, db.graph.NodeStore(), base, ours, theirs)
	if errors.Is(err, eventindex.ErrMergeConflict) {
		return commitgraph.RootValue{}, errSerialization("%v", err)
	}
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return l.Store(ctx, merged)
}

// mergeLogs merges the event logs of three root values (eventindex.Merge).
func mergeLogs(ctx context.Context, ns *prolly.NodeStore, base, ours, theirs commitgraph.RootValue) (eventindex.Log, error) {
	var logs [3]eventindex.Log
	for i, r := range []commitgraph.RootValue{base, ours, theirs} {
		var err error
		if logs[i], err = eventindex.LoadLog(ctx, ns, r); err != nil {
			return eventindex.Log{}, err
		}
	}
	return eventindex.Merge(ctx, logs[0], logs[1], logs[2])
}

// mergeBranchEvents is the tablemerge.PrefixMerger of the event log: in a
// branch merge (a merge, cherry-pick or revert) theirs' new events follow
// ours' (renumbered), and both branches changing one stream fails the
// merge.
func mergeBranchEvents(ctx context.Context, ns *prolly.NodeStore, base, ours, theirs, merged commitgraph.RootValue) (commitgraph.RootValue, error) {
	l, err := mergeLogs(ctx, ns, base, ours, theirs)
	if errors.Is(err, eventindex.ErrMergeConflict) {
		return commitgraph.RootValue{}, fmt.Errorf("%w; the merge changed nothing: merge one branch's events into the other stream by stream (read them with dolt_read_stream and append them with dolt_append_events), then merge again", err)
	}
	if err != nil {
		return commitgraph.RootValue{}, err
	}
	return l.Store(ctx, merged)
}
