// Package tables stores SQL tables in prolly trees: a table value is a
// schema, a row map and one map per secondary index, written as one small
// chunk (table.go) that names them, so unchanged tables, schemas and
// subtrees are shared between commits.
//
// # Main types
//
//   - Schema, Column, Index: a table's definition. Column types are kept as
//     SQL text for the SQL layer; storage works from each column's
//     prolly.Kind. EncodeSchema / DecodeSchema give its stored form.
//   - Table: an immutable table value. New, Load, Write; Get, Scan and
//     ScanIndex read rows as []Value; Check verifies every invariant.
//   - Editor: inserts, updates and deletes that enforce the primary key,
//     unique indexes, NOT NULL and auto-increment and keep every index in
//     step. Reads through the editor see its pending writes; Savepoint and
//     Rollback undo a failed statement; Table applies everything in one
//     batch per map.
//
// The row and index encodings are described in rowcodec.go. Keyless tables
// key each distinct row by the address of its contents and count copies.
// Collations other than binary come from the layer above, in the
// Collations passed to New and Load (storage keeps no registry): key
// columns in them are ordered by the collation's sort key and the original
// value is kept in the row.
//
// # Caveats
//
//   - A projected scan (Table.Project, RowIter.Project) decodes only the
//     projected fields of each stored row and loads only their large values;
//     fields it skips are not checked, so a corrupt field is reported only by
//     a read that includes it (Check reads everything).
//   - A Table is safe for concurrent readers; an Editor and a RowIter are
//     not safe for concurrent use.
//   - Editor.Table writes chunks to the store; they become durable only when
//     a commit reaches them.
//   - Unique indexes do not compare rows with a NULL in an indexed column,
//     as in MySQL.
//   - Keys (primary or index) are limited to prolly.MaxKeySize bytes; a row
//     that would exceed that, or a row too wide to store inline, is refused
//     with ErrTooLarge before anything is written.
//   - An index column with a prefix length (Index.Prefix) is keyed on its
//     first n characters (strings) or bytes; a unique index constrains the
//     prefixes, as in MySQL. A scan of such an index over a key prefix
//     yields every row whose prefix matches, so callers filter the rows.
//   - Descending index columns are not supported yet.
package tables
