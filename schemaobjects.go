package verso

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/verso-db/verso/commitgraph"
)

// The schema objects as items. Dolt keeps views, triggers and events as
// rows of a table dolt_schemas, and stored procedures as rows of
// dolt_procedures; verso keeps each object as a chunk of its own under its
// kind's prefix (objects.go), and names the objects of those prefixes as
// the one item Dolt names (staging.go): dolt_status, dolt_add, dolt_reset
// and dolt_diff see the item, the SQL layer shows its rows.

// objectItemPrefixes are the root value prefixes of each object item.
var objectItemPrefixes = map[string][]string{
	SchemasItem:    {commitgraph.ViewPrefix, commitgraph.TriggerPrefix, commitgraph.SQLEventPrefix},
	ProceduresItem: {commitgraph.ProcedurePrefix},
}

// ObjectItemPrefixes returns the root value prefixes whose objects make up
// the object item (SchemasItem, ProceduresItem); nil for any other name.
func ObjectItemPrefixes(item string) []string { return objectItemPrefixes[item] }

// ObjectEntries returns the entries of root that make up the object item,
// in the order of its prefixes, each by name.
func ObjectEntries(ctx context.Context, root RootValue, item string) ([]RootEntry, error) {
	var out []RootEntry
	for _, p := range objectItemPrefixes[item] {
		ents, err := root.Entries(ctx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, ents...)
	}
	return out, nil
}

// ReadObject returns the object chunk at the entry e of a root value,
// decoded whatever its kind (the kind decides its fields, objects.go).
func (db *DB) ReadObject(ctx context.Context, e RootEntry, prefix string) (Object, error) {
	b, err := db.store.Get(ctx, e.Addr)
	if err != nil {
		return Object{}, err
	}
	return decodeAnyObject(strings.TrimPrefix(e.Name, prefix), b)
}

// ChangedObjects returns the object items that differ from root from to
// root to, by name, as dolt_diff lists them beside the tables: an item
// whose objects changed has a data change, and a schema change too when
// one root has none of its objects (Dolt creates and drops the table that
// holds them). Its cost follows the size of the change.
func ChangedObjects(ctx context.Context, from, to RootValue) ([]TableChange, error) {
	changed := map[string]bool{}
	err := from.Diff(ctx, to, func(ch commitgraph.RootChange) error {
		for item, prefixes := range objectItemPrefixes {
			for _, p := range prefixes {
				if strings.HasPrefix(ch.Name, p) {
					changed[item] = true
				}
			}
		}
		return nil
	})
	if err != nil || len(changed) == 0 {
		return nil, err
	}
	var out []TableChange
	for item := range changed {
		inFrom, err := hasObjects(ctx, from, item)
		if err != nil {
			return nil, err
		}
		inTo, err := hasObjects(ctx, to, item)
		if err != nil {
			return nil, err
		}
		out = append(out, TableChange{Table: item, DataChange: true, SchemaChange: !inFrom || !inTo})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out, nil
}

// hasObjects reports whether root holds any object of the item.
func hasObjects(ctx context.Context, root RootValue, item string) (bool, error) {
	for _, p := range objectItemPrefixes[item] {
		ents, err := root.Entries(ctx, p)
		if err != nil || len(ents) > 0 {
			return len(ents) > 0, err
		}
	}
	return false, nil
}

// isObjectEntry reports whether the root value name is a schema object's.
func isObjectEntry(name string) bool {
	for _, prefixes := range objectItemPrefixes {
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) && len(name) > len(p) {
				return true
			}
		}
	}
	return false
}

// StageObjects stages the schema objects named (root value names, such as
// "views/v1"), one by one as a row of dolt_workspace_dolt_schemas is: the
// staged root takes each as the working root holds it (none: removed),
// or, with fromHead, as the head holds it (unstaging it). The branch's
// working set is written with one update, as Stage's.
func (t *Txn) StageObjects(ctx context.Context, names []string, fromHead bool) error {
	for _, n := range names {
		if !isObjectEntry(n) {
			return fmt.Errorf("verso: %q is not a schema object", n)
		}
	}
	return t.UpdateBranch(ctx, func(s *BranchState) (*BranchChange, error) {
		src := s.Working
		if fromHead {
			src = s.HeadRoot
		}
		staged, err := copyEntries(ctx, src, s.Staged, names)
		if err != nil {
			return nil, err
		}
		return &BranchChange{Working: s.Working, Staged: staged, Merge: s.WS.Merge}, nil
	})
}

// RevertObjects undoes the changes of the schema objects named that are
// not staged: the transaction's working root takes each as the staged
// root holds it (none: removed).
func (t *Txn) RevertObjects(ctx context.Context, names []string) error {
	if t.readOnly {
		return fmt.Errorf("%w: %s is a revision at a commit", ErrReadOnly, t.branch)
	}
	for _, n := range names {
		if !isObjectEntry(n) {
			return fmt.Errorf("verso: %q is not a schema object", n)
		}
	}
	roots, err := t.WorkspaceRoots(ctx)
	if err != nil {
		return err
	}
	root, err := copyEntries(ctx, roots[1], t.root, names)
	if err != nil {
		return err
	}
	t.root = root
	return nil
}

// copyEntries returns dst with the entries named as src has them.
func copyEntries(ctx context.Context, src, dst RootValue, names []string) (RootValue, error) {
	edits := make([]commitgraph.RootEdit, 0, len(names))
	for _, n := range names {
		addr, ok, err := src.Get(ctx, n)
		if err != nil {
			return dst, err
		}
		edits = append(edits, commitgraph.RootEdit{Name: n, Addr: addr, Delete: !ok})
	}
	return dst.Edit(ctx, dedupEdits(edits)...)
}
