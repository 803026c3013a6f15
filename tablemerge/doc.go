// Package tablemerge merges root values three ways, table by table and row
// by row: the one root-merge driver, behind dolt_merge, dolt_cherry_pick
// and dolt_revert and behind the engine's transaction commits (which merge
// a committing transaction into the working root with their own table
// strategy: Options.Tables, Refuse and KeepConflicts). It sits on packages
// tables and commitgraph.
//
// # Main types
//
//   - Merge(ctx, ns, base, ours, theirs, Options) merges the changes from
//     base to theirs into ours and returns a Result: the merged root value,
//     the tables left with conflicts, and the tables merged row by row.
//   - ConflictSet: the rows in conflict of one table, stored in the merged
//     root under "conflicts/<table>" (ConflictsPrefix; format in
//     conflicts.go). LoadConflictSet, ListConflicts, HasConflicts,
//     SetConflicts, and ResolveConflicts (Ours or Theirs) read and resolve
//     them.
//   - PrefixMerger, passed in Options.PrefixMergers: the hook for entries
//     of the layers above that must be merged together, such as the event
//     log and its indexes ("events/"). An entry under neither a prefix of
//     this package nor one of those fails the merge (ErrNoMerger).
//
// # What merges how
//
// Root value entries are merged by name (commitgraph.MergeRoots): an entry
// changed on one side takes that side's value (a table added, dropped or
// changed on one side only is taken whole, without being read); an entry
// changed the same way on both sides takes it once. A table both sides
// changed is merged row by row, walking the two prolly diffs from base, so
// the cost follows the size of the changes: rows changed on one side are
// taken, rows changed alike are taken once, rows both changed in
// different columns are merged cell by cell, and the rest (one column
// changed to two values, a row deleted on one side and changed on the
// other, one key inserted with two rows) are conflicts: the table keeps
// our row and the conflict records base, ours and theirs. A table without
// a primary key is a bag of rows: both sides' added copies add up.
//
// Schemas merge by column, index and check name (schema.go); rows of a
// side with the older schema are migrated to the merged one by column
// name, new columns taking their default (Options.Default; LiteralDefault
// evaluates literal defaults). Views, triggers, events, procedures,
// foreign keys and table options merge by name.
//
// These fail the merge, which then changes nothing: both sides changed a
// schema part differently (ErrSchemaConflict); a table dropped on one side
// and changed on the other, or created on both with different schemas
// (ErrTableConflict); an object changed differently on both sides
// (ErrObjectConflict); merged rows that break a unique key or NOT NULL
// (*ConstraintError, ErrConstraint), unless Options.RecordViolations
// records the unique-key violations instead (violations.go, under
// "violations/<table>"), as branch merges do; a side that still holds conflicts
// (ErrUnresolvedConflicts); an entry of a layer above that no merger of
// Options.PrefixMergers covers (ErrNoMerger). Every message names the table or object and
// says what to change.
//
// # Caveats
//
//   - The edits of one table (every row whose merged value differs from
//     the side the merge starts from) are held in memory, as are the rows
//     in conflict, before they are written.
//   - A schema change on one side rewrites every row on that side, so the
//     merge of its table reads every row: O(rows), as the change itself.
//     When both sides changed a schema (differently but compatibly), the
//     merged table is rebuilt from ours: O(rows) too.
//   - A primary key changed on one side while the other side changed rows
//     of the table is a schema conflict: rows cannot be matched across
//     keys.
//   - Foreign keys are not checked across the merged tables, and CHECK
//     constraints are not evaluated (they are SQL expressions): the SQL
//     layer records those violations itself (the engine's
//     MergeOptions.Verify).
//   - With KeepSchemaConflicts, a branch merge records a table's schema
//     conflict under "schemaconflicts/<table>" (schemaconflicts.go) and
//     keeps our table; a conflict of a table's options still fails.
//   - A recorded unique-key violation leaves the table holding the
//     value twice: tables.Check reports it (ErrDuplicateUnique), which
//     fsck accepts where the root records the violations.
//   - Identical changes on both sides of a table without a primary key
//     (both inserting one copy of a row) give one copy: the two tables are
//     equal, and equal entries merge as one change.
//   - Merge writes chunks (merged tables, conflict sets) to the node store
//     of ns; they become durable when a commit or working set names them.
package tablemerge
