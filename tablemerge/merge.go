package tablemerge

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Root value names this package knows (commitgraph/rootnames.go).
const (
	TablePrefix     = commitgraph.TablePrefix
	TableOptsPrefix = commitgraph.TableOptsPrefix
)

// Options tune a merge.
type Options struct {
	// Theirs is the commit being merged, recorded with the conflicts
	// (dolt_conflicts_<table>.from_root_ish).
	Theirs chunks.Address
	// Collations are the collations the tables' string columns may name
	// besides the binary ones (tables.New); the SQL layer passes its own.
	Collations tables.Collations
	// Default computes the value a row migrated into a schema that added a
	// column takes there; nil is LiteralDefault.
	Default DefaultFunc
	// PrefixMergers merge the entries under each prefix (the key) that the
	// layers above keep in the root value, such as the event log's
	// "events/". An entry of base, ours or theirs that is neither under a
	// prefix this package merges itself (tables, table options, views,
	// triggers, procedures, foreign keys, conflicts) nor under one of these
	// fails the merge with ErrNoMerger: it is never taken or dropped
	// blindly.
	PrefixMergers map[string]PrefixMerger
	// Tables, when set, merges each table both sides changed instead of
	// the row-by-row merge with conflicts (the engine's transaction
	// commits replay their row changes with it and refuse any row both
	// changed): it returns the merged table's address, or an error that
	// stops the merge and is returned as is.
	Tables TableMerger
	// KeepConflicts lets ours and theirs hold the conflicts of an earlier
	// merge (a transaction committed while they are being resolved); their
	// entries merge by name like other objects. Without it such a merge
	// fails with ErrUnresolvedConflicts.
	KeepConflicts bool
	// KeepSchemaConflicts keeps ours of a table that cannot be merged
	// because of its schema (ErrSchemaConflict: both sides changed its
	// columns, keys or options in ways that do not combine;
	// ErrTableConflict: one side dropped it and the other changed it, or
	// both created it differently) and lists it in Result.SchemaConflicts,
	// instead of failing the merge: for a preview of what a merge would
	// meet (data conflicts of the other tables included).
	KeepSchemaConflicts bool
	// RecordViolations writes merged rows that break a unique key into
	// the table all the same and records every row involved as a
	// violation (Result.Violations, and the merged root's
	// ViolationsPrefix entries), as Dolt's merges do, instead of failing
	// the merge with a ConstraintError.
	RecordViolations bool
	// Refuse, when set, decides every name other than a table's (and
	// those of PrefixMergers) that both sides changed differently: its
	// error stops the merge. The engine's transaction commits refuse them
	// all as serialization failures; unset, such names fail with the
	// errors described at Merge.
	Refuse func(c commitgraph.RootConflict) error
}

// TableMerger merges the table name that both sides changed (c: its
// addresses on each side, any of them absent).
type TableMerger func(ctx context.Context, name string, c commitgraph.RootConflict) (chunks.Address, error)

// Result is what Merge made.
type Result struct {
	// Root is the merged root value, with the conflicts of each table
	// under ConflictsPrefix.
	Root commitgraph.RootValue
	// Conflicts lists the tables left with rows in conflict, by name.
	Conflicts []TableConflicts
	// Merged lists the tables that both sides changed and that were
	// merged row by row, by name.
	Merged []string
	// SchemaConflicts lists, with Options.KeepSchemaConflicts, the tables
	// left as ours because their schemas conflict, by name (a table whose
	// columns and options both conflict is listed twice).
	SchemaConflicts []SchemaConflict
	// Violations lists, with Options.RecordViolations, the tables whose
	// merged rows break a unique key, by name.
	Violations []TableViolations
}

// SchemaConflict is a table a merge with Options.KeepSchemaConflicts did
// not merge; Err says why (ErrSchemaConflict or ErrTableConflict).
type SchemaConflict struct {
	Table string
	Err   error
	// Options: the table's options (tableopts/) conflict, not the table.
	Options bool
	// Base, Ours and Theirs are the table's chunks (zero where absent).
	Base, Ours, Theirs chunks.Address
}

// Stored returns the conflict as a root value records it.
func (c SchemaConflict) Stored() StoredSchemaConflict {
	return StoredSchemaConflict{Base: c.Base, Ours: c.Ours, Theirs: c.Theirs, Description: describe(c.Err)}
}

// HasConflicts reports whether the merge left rows in conflict.
func (r *Result) HasConflicts() bool { return len(r.Conflicts) > 0 }

// ConflictTables returns the names of the tables with conflicts, in the
// order of Conflicts.
func (r *Result) ConflictTables() []string {
	names := make([]string, len(r.Conflicts))
	for i, c := range r.Conflicts {
		names[i] = c.Table
	}
	return names
}

// PrefixMerger merges the root value entries under one prefix (such as
// "events/", the event log and its indexes, which must be merged
// together) when both sides changed entries under it. It gets the three
// root values and merged, the root as merged so far (where an entry changed
// on one side only already has that side's address and an entry changed
// differently on both keeps ours), and returns merged with the prefix's
// entries set right, or an error to stop the merge.
type PrefixMerger func(ctx context.Context, ns *prolly.NodeStore, base, ours, theirs, merged commitgraph.RootValue) (commitgraph.RootValue, error)

// objectKinds names the root value prefixes of the objects merged by name
// (before the '/'), with what messages call them.
var objectKinds = map[string]string{"views": "view", "triggers": "trigger", "procedures": "procedure", "foreignkeys": "foreign key", "dbopts": "database option", "sqlevents": "event"}

type merger struct {
	ns   *prolly.NodeStore
	opts Options
}

// Merge merges the changes from base to theirs into ours and returns the
// merged root value. Names (tables, objects) changed on one side only take
// that side's value without being read; a table both sides changed is
// merged row by row (see rows.go) and its rows in conflict are recorded
// under ConflictsPrefix; views, triggers, events, procedures, foreign keys
// and table options merge by name, and one both sides changed differently
// fails the merge with ErrObjectConflict (ErrSchemaConflict for table
// options); entries under a prefix of Options.PrefixMergers go to its
// merger, and any other entry fails the merge with ErrNoMerger. Schema
// conflicts, tables dropped on one side and changed on the other, and
// merged rows that break a unique key fail the merge; nothing is written
// that a root names then.
func Merge(ctx context.Context, ns *prolly.NodeStore, base, ours, theirs commitgraph.RootValue, opts Options) (*Result, error) {
	for _, side := range []struct {
		name string
		root commitgraph.RootValue
	}{{"ours", ours}, {"theirs", theirs}} {
		if opts.KeepConflicts {
			break
		}
		has, err := HasConflicts(ctx, side.root)
		if err != nil {
			return nil, err
		}
		if has {
			return nil, fmt.Errorf("%w: %s holds conflicts of an earlier merge; resolve them (dolt_conflicts_resolve) and commit first", ErrUnresolvedConflicts, side.name)
		}
	}
	mergers := opts.PrefixMergers
	covered := []string{TablePrefix, TableOptsPrefix, ConflictsPrefix, ViolationsPrefix, SchemaConflictsPrefix}
	for kind := range objectKinds {
		covered = append(covered, kind+"/")
	}
	for p := range mergers {
		covered = append(covered, p)
	}
	for _, side := range []struct {
		name string
		root commitgraph.RootValue
	}{{"base", base}, {"ours", ours}, {"theirs", theirs}} {
		name, found, err := uncovered(ctx, side.root, covered)
		if err != nil {
			return nil, err
		}
		if found {
			return nil, fmt.Errorf("%w: %s holds %q, which no merger of Options.PrefixMergers covers", ErrNoMerger, side.name, name)
		}
	}
	m := &merger{ns: ns, opts: opts}
	res := &Result{}
	var conflictEdits []commitgraph.RootEdit
	// The prefixes under which both sides changed entries, not
	// necessarily the same ones: their entries are merged together.
	pending := map[string]bool{}
	if len(mergers) > 0 {
		ourChanges, err := changedPrefixes(ctx, base, ours, mergers)
		if err != nil {
			return nil, err
		}
		theirChanges, err := changedPrefixes(ctx, base, theirs, mergers)
		if err != nil {
			return nil, err
		}
		for p := range ourChanges {
			pending[p] = theirChanges[p]
		}
	}
	var failed error
	merged, err := commitgraph.MergeRoots(ctx, base, ours, theirs, func(ctx context.Context, c commitgraph.RootConflict) (addr chunks.Address, keep bool, err error) {
		defer func() { failed = err }()
		for p := range mergers {
			if strings.HasPrefix(c.Name, p) {
				return c.Ours, c.InOurs, nil
			}
		}
		if name, ok := strings.CutPrefix(c.Name, TablePrefix); ok && opts.Tables != nil {
			addr, err := opts.Tables(ctx, name, c)
			if err != nil {
				return chunks.Address{}, false, err
			}
			res.Merged = append(res.Merged, name)
			return addr, true, nil
		}
		if name, ok := strings.CutPrefix(c.Name, TablePrefix); ok {
			addr, cs, vs, err := m.resolveTable(ctx, name, c)
			if err != nil && opts.KeepSchemaConflicts && (errors.Is(err, ErrSchemaConflict) || errors.Is(err, ErrTableConflict)) {
				sc := SchemaConflict{Table: name, Err: err}
				if c.InBase {
					sc.Base = c.Base
				}
				if c.InOurs {
					sc.Ours = c.Ours
				}
				if c.InTheirs {
					sc.Theirs = c.Theirs
				}
				res.SchemaConflicts = append(res.SchemaConflicts, sc)
				return c.Ours, c.InOurs, nil
			}
			if err != nil {
				return chunks.Address{}, false, err
			}
			res.Merged = append(res.Merged, name)
			if cs != nil {
				ca, err := cs.Write(ctx)
				if err != nil {
					return chunks.Address{}, false, err
				}
				conflictEdits = append(conflictEdits, commitgraph.RootEdit{Name: ConflictsPrefix + name, Addr: ca})
				res.Conflicts = append(res.Conflicts, TableConflicts{Table: name, Count: cs.Count()})
			}
			if vs != nil {
				va, err := vs.Write(ctx)
				if err != nil {
					return chunks.Address{}, false, err
				}
				conflictEdits = append(conflictEdits, commitgraph.RootEdit{Name: ViolationsPrefix + name, Addr: va})
				res.Violations = append(res.Violations, TableViolations{Table: name, Count: vs.Count()})
			}
			return addr, true, nil
		}
		if opts.Refuse != nil {
			return chunks.Address{}, false, opts.Refuse(c)
		}
		if name, ok := strings.CutPrefix(c.Name, TableOptsPrefix); ok {
			err := fmt.Errorf("%w: both branches changed the options (comment, collation) of table %q differently; change them on one branch to match the other, then merge again", ErrSchemaConflict, name)
			if opts.KeepSchemaConflicts {
				res.SchemaConflicts = append(res.SchemaConflicts, SchemaConflict{Table: name, Err: err, Options: true})
				return c.Ours, c.InOurs, nil
			}
			return chunks.Address{}, false, err
		}
		kind, name, _ := strings.Cut(c.Name, "/")
		what := objectKinds[kind]
		if what == "" {
			what, name = "entry", c.Name
		}
		switch {
		case !c.InOurs || !c.InTheirs:
			return chunks.Address{}, false, fmt.Errorf("%w: %s %q was dropped on one branch and changed on the other; make the branches agree, then merge again", ErrObjectConflict, what, name)
		default:
			return chunks.Address{}, false, fmt.Errorf("%w: both branches changed %s %q differently; make the branches agree, then merge again", ErrObjectConflict, what, name)
		}
	})
	if err != nil {
		if failed != nil {
			return nil, failed
		}
		return nil, err
	}
	prefixes := make([]string, 0, len(pending))
	for p, both := range pending {
		if both {
			prefixes = append(prefixes, p)
		}
	}
	sort.Strings(prefixes)
	for _, p := range prefixes {
		if merged, err = mergers[p](ctx, ns, base, ours, theirs, merged); err != nil {
			return nil, fmt.Errorf("tablemerge: merging %s: %w", p, err)
		}
	}
	if len(conflictEdits) > 0 {
		if merged, err = merged.Edit(ctx, conflictEdits...); err != nil {
			return nil, err
		}
	}
	res.Root = merged
	return res, nil
}

// uncovered returns the first name of root that begins with none of
// prefixes, if any. It seeks past each prefix it finds, so its cost follows
// the number of prefixes present, not of entries.
func uncovered(ctx context.Context, root commitgraph.RootValue, prefixes []string) (string, bool, error) {
	var start []byte
	for {
		it := root.Map().Iter(ctx, prolly.Range{Start: start})
		if !it.Next(ctx) {
			return "", false, it.Err()
		}
		name := string(it.Key())
		cover := ""
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) && (cover == "" || len(p) < len(cover)) {
				cover = p
			}
		}
		if cover == "" {
			return name, true, nil
		}
		if start = prolly.PrefixRange([]byte(cover)).Stop; start == nil {
			return "", false, nil
		}
	}
}

// changedPrefixes returns the prefixes of mergers under which entries
// differ from base to side.
func changedPrefixes(ctx context.Context, base, side commitgraph.RootValue, mergers map[string]PrefixMerger) (map[string]bool, error) {
	out := map[string]bool{}
	err := base.Diff(ctx, side, func(c commitgraph.RootChange) error {
		for p := range mergers {
			if strings.HasPrefix(c.Name, p) {
				out[p] = true
			}
		}
		return nil
	})
	return out, err
}

// resolveTable merges a table both sides changed.
func (m *merger) resolveTable(ctx context.Context, name string, c commitgraph.RootConflict) (chunks.Address, *ConflictSet, *ViolationSet, error) {
	if !c.InOurs || !c.InTheirs {
		kept := c.Ours
		if !c.InOurs {
			kept = c.Theirs
		}
		e := &DropConflictError{Table: name}
		if c.InBase {
			bh, err := tables.ReadHeader(ctx, m.ns, c.Base)
			if err != nil {
				return chunks.Address{}, nil, nil, err
			}
			kh, err := tables.ReadHeader(ctx, m.ns, kept)
			if err != nil {
				return chunks.Address{}, nil, nil, err
			}
			e.SchemaChanged = bh.Schema != kh.Schema
		}
		return chunks.Address{}, nil, nil, e
	}
	load := func(a chunks.Address) (*tables.Table, error) { return tables.Load(ctx, m.ns, a, m.opts.Collations) }
	var base *tables.Table
	var err error
	if c.InBase {
		if base, err = load(c.Base); err != nil {
			return chunks.Address{}, nil, nil, err
		}
	}
	ours, err := load(c.Ours)
	if err != nil {
		return chunks.Address{}, nil, nil, err
	}
	theirs, err := load(c.Theirs)
	if err != nil {
		return chunks.Address{}, nil, nil, err
	}
	t, cs, vs, err := m.mergeTable(ctx, name, base, ours, theirs)
	if err != nil {
		return chunks.Address{}, nil, nil, err
	}
	addr, err := t.Write(ctx)
	return addr, cs, vs, err
}

// IsMergeError reports whether err is one of the package's merge failures
// (a schema, table, object or constraint conflict, or unresolved
// conflicts): a user's matter, not a fault of the store.
func IsMergeError(err error) bool {
	for _, e := range []error{ErrSchemaConflict, ErrTableConflict, ErrObjectConflict, ErrUnresolvedConflicts, ErrConstraint} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
