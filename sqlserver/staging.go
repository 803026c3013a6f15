package sqlserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/verso-db/verso/commitgraph"
)

// Items: what dolt_add, dolt_reset, dolt_checkout and dolt_status call a
// table. A root value entry belongs to one item:
//
//	tables/<t>, tableopts/<t>         the table t
//	views/, triggers/, procedures/    dolt_schemas (as Dolt keeps them)
//	conflicts/<t>/...                 the table t's conflicts (not staged)
//	any other name                    itself (foreign keys, the event log)
const schemasItem = "dolt_schemas"

// itemOf returns the item a root value entry belongs to.
func itemOf(name string) string {
	switch {
	case strings.HasPrefix(name, tablePrefix):
		return strings.TrimPrefix(name, tablePrefix)
	case strings.HasPrefix(name, tableOptsPrefix):
		return strings.TrimPrefix(name, tableOptsPrefix)
	case strings.HasPrefix(name, viewPrefix), strings.HasPrefix(name, triggerPrefix), strings.HasPrefix(name, procedurePrefix):
		return schemasItem
	}
	return name
}

// itemChange is an item that differs between two roots.
type itemChange struct {
	name           string
	inFrom, inTo   bool // the item has entries in the from / to root
	isTable        bool
	fromAll, toAll []commitgraph.RootEntry
}

// changedItems returns the items that differ from one root to another,
// sorted by name, without conflicts (see conflictedTables).
func changedItems(ctx context.Context, from, to commitgraph.RootValue) ([]itemChange, error) {
	names := map[string]bool{}
	err := from.Diff(ctx, to, func(c commitgraph.RootChange) error {
		if !strings.HasPrefix(c.Name, conflictsPrefix) {
			names[itemOf(c.Name)] = true
		}
		return nil
	})
	if err != nil || len(names) == 0 {
		return nil, err
	}
	fromItems, err := itemEntries(ctx, from)
	if err != nil {
		return nil, err
	}
	toItems, err := itemEntries(ctx, to)
	if err != nil {
		return nil, err
	}
	out := make([]itemChange, 0, len(names))
	for n := range names {
		c := itemChange{name: n, fromAll: fromItems[n], toAll: toItems[n]}
		c.inFrom, c.inTo = len(c.fromAll) > 0, len(c.toAll) > 0
		c.isTable = hasTableEntry(c.fromAll) || hasTableEntry(c.toAll)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

func hasTableEntry(es []commitgraph.RootEntry) bool {
	for _, e := range es {
		if strings.HasPrefix(e.Name, tablePrefix) {
			return true
		}
	}
	return false
}

// itemEntries groups root's entries (conflicts aside) by item.
func itemEntries(ctx context.Context, root commitgraph.RootValue) (map[string][]commitgraph.RootEntry, error) {
	ents, err := root.Entries(ctx, "")
	if err != nil {
		return nil, err
	}
	out := map[string][]commitgraph.RootEntry{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name, conflictsPrefix) {
			continue
		}
		n := itemOf(e.Name)
		out[n] = append(out[n], e)
	}
	return out, nil
}

// findItem returns the item of root named name, ignoring case, or "".
func findItem(items map[string][]commitgraph.RootEntry, name string) string {
	if _, ok := items[name]; ok {
		return name
	}
	for n := range items {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

// copyItems returns dst with the named items as src has them (an item src
// lacks is removed from dst). Names are matched without case; a name in
// neither root is an error naming what and where.
func copyItems(ctx context.Context, src, dst commitgraph.RootValue, names []string, what string) (commitgraph.RootValue, error) {
	srcItems, err := itemEntries(ctx, src)
	if err != nil {
		return dst, err
	}
	dstItems, err := itemEntries(ctx, dst)
	if err != nil {
		return dst, err
	}
	var edits []commitgraph.RootEdit
	for _, name := range names {
		s, d := findItem(srcItems, name), findItem(dstItems, name)
		if s == "" && d == "" {
			return dst, fmt.Errorf("%s: no table %q; SHOW TABLES lists the tables", what, name)
		}
		for _, e := range dstItems[d] {
			edits = append(edits, commitgraph.RootEdit{Name: e.Name, Delete: true})
		}
		for _, e := range srcItems[s] {
			edits = append(edits, commitgraph.RootEdit{Name: e.Name, Addr: e.Addr})
		}
	}
	return dst.Edit(ctx, dedupEdits(edits)...)
}

// dedupEdits keeps the last edit of each name.
func dedupEdits(edits []commitgraph.RootEdit) []commitgraph.RootEdit {
	last := map[string]int{}
	for i, e := range edits {
		last[e.Name] = i
	}
	out := edits[:0:0]
	for i, e := range edits {
		if last[e.Name] == i {
			out = append(out, e)
		}
	}
	return out
}

// withoutConflicts returns root without its conflicts entries.
func withoutConflicts(ctx context.Context, root commitgraph.RootValue) (commitgraph.RootValue, error) {
	ents, err := root.Entries(ctx, conflictsPrefix)
	if err != nil || len(ents) == 0 {
		return root, err
	}
	edits := make([]commitgraph.RootEdit, len(ents))
	for i, e := range ents {
		edits[i] = commitgraph.RootEdit{Name: e.Name, Delete: true}
	}
	return root.Edit(ctx, edits...)
}

// stageAll returns the staged root after "dolt_add -A": the working root,
// without its conflicts.
func stageAll(ctx context.Context, working commitgraph.RootValue) (commitgraph.RootValue, error) {
	return withoutConflicts(ctx, working)
}

// stageTracked returns staged with every item that changed from staged to
// working and exists in staged ("dolt_commit -a": modified and deleted
// tables, not new ones).
func stageTracked(ctx context.Context, staged, working commitgraph.RootValue) (commitgraph.RootValue, error) {
	changes, err := changedItems(ctx, staged, working)
	if err != nil {
		return staged, err
	}
	var names []string
	for _, c := range changes {
		if c.inFrom {
			names = append(names, c.name)
		}
	}
	if len(names) == 0 {
		return staged, nil
	}
	return copyItems(ctx, working, staged, names, "dolt_commit -a")
}
