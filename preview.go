package verso

import (
	"context"
	"fmt"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tablemerge"
)

// A merge preview: what merging one revision into another would meet,
// computed as Merge computes a three-way merge (tablemerge.Merge of the two
// commits' roots from their merge base) but in scratch space
// (chunks.Overlay): nothing is written to the database, which may be open
// read-only. Schema conflicts, which fail a merge, are listed per table
// (tablemerge.Options.KeepSchemaConflicts) so that the data conflicts of
// the other tables are seen too.

// MergePreview is what a merge of Theirs into Ours would meet.
type MergePreview struct {
	Ours, Theirs, Base *Commit
	// Conflicts lists the tables whose rows would conflict, by name.
	Conflicts []TableConflicts
	// SchemaConflicts lists the tables the merge could not merge because
	// of their schemas, by name.
	SchemaConflicts []tablemerge.SchemaConflict

	merged bool      // a three-way merge ran: root holds its result
	root   RootValue // the merged root, in ns's overlay
	ns     *prolly.NodeStore
}

// PreviewMerge previews the merge of the revision theirs into the
// revision ours (branches, tags, hashes, specs; HEAD is head's head) at
// their commits: working sets play no part. def computes the values of a
// column added on one side, as in MergeOptions.Default. An unknown
// revision fails with a *RevisionError.
func (db *DB) PreviewMerge(ctx context.Context, ours, theirs, head string, def tablemerge.DefaultFunc) (*MergePreview, error) {
	if head == "" {
		head = db.DefaultBranch()
	}
	o, err := db.resolve(ctx, ours, head)
	if err != nil {
		return nil, err
	}
	th, err := db.resolve(ctx, theirs, head)
	if err != nil {
		return nil, err
	}
	g := db.graph
	base, err := g.MergeBase(ctx, o.Addr, th.Addr)
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", ours, theirs, err)
	}
	p := &MergePreview{Ours: o, Theirs: th, Base: base}
	if base.Addr == o.Addr || base.Addr == th.Addr {
		return p, nil // a fast-forward, or nothing to merge
	}
	p.ns = prolly.NewNodeStore(chunks.NewOverlay(g.NodeStore().Store()))
	roots := make([]RootValue, 3)
	for i, c := range []*Commit{base, o, th} {
		if roots[i], err = commitgraph.OpenRoot(ctx, p.ns, c.Root); err != nil {
			return nil, err
		}
	}
	opts := db.mergeOptions(th.Addr, def)
	opts.KeepSchemaConflicts = true
	res, err := tablemerge.Merge(ctx, p.ns, roots[0], roots[1], roots[2], opts)
	if err != nil {
		return nil, err
	}
	p.merged, p.root, p.Conflicts, p.SchemaConflicts = true, res.Root, res.Conflicts, res.SchemaConflicts
	return p, nil
}

// ConflictSet returns the rows of the table named table (its exact name)
// that the merge would leave in conflict, or nil if none.
func (p *MergePreview) ConflictSet(ctx context.Context, table string) (*tablemerge.ConflictSet, error) {
	if !p.merged {
		return nil, nil
	}
	addr, ok, err := p.root.Get(ctx, tablemerge.ConflictsPrefix+table)
	if err != nil || !ok {
		return nil, err
	}
	return tablemerge.LoadConflictSet(ctx, p.ns, addr)
}
