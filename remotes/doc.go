// Package remotes keeps verso databases on object storage, to share them
// the way Git shares repositories: a remote is a folder (file://) or an
// S3 bucket and prefix (s3://, also S3-compatible stores) holding
// immutable table files of chunks and one manifest naming the remote's
// root and its files (the format is in manifest.go).
//
// # Main types
//
//   - Blobstore: the object storage a remote lives on. FileBlobstore is a
//     folder; S3Blobstore is S3 through the AWS SDK for Go v2.
//   - Store: a remote as a chunks.Store, so the commit graph
//     (commitgraph.New) reads and writes its refs as a local database's.
//     Its Commit uploads the chunks put since the last one as a table file
//     and replaces the manifest with a conditional write.
//   - Copy: the transfer of what one store lacks of another's history,
//     found with the collector's reference scan (chunks.Known), stopping
//     at every chunk the destination has.
//   - PushRef, Refs and FetchRefs: a branch or tag pushed (fast-forward
//     only unless forced), the remote's refs, and their histories fetched.
//     The engine (package verso) keeps the remotes' configuration and the
//     remote-tracking refs, and merges.
//   - Whole table files (clonetables.go): a remote's table files are
//     local table files, so a push to an empty remote uploads the
//     source's table files as they are (chunks.FileStore.WithTableFiles)
//     and copies only what its journal holds besides, and a clone adds the
//     remote's largest table files to its new store as they are
//     (CopyTables, chunks.FileStore.AddTable, which checks every record).
//     Either moves what the files hold, garbage included, which a
//     collection of the destination drops.
//
// # Caveats
//
//   - Every push adds a table file; a commit that would leave the
//     manifest naming more than 32 merges the smallest into one first
//     (store.go, "Conjoining"), so a reader reads at most 32 indexes.
//     Nothing removes the files no manifest names (those merged, and
//     uploads of a push that lost its race or was cut short) yet: a
//     remote's folder or bucket only grows.
//   - A Store is not a snapshot: Root reads the manifest again, so two
//     calls may see two roots. Chunks, once read, never change.
//   - What a remote returns is not trusted: every chunk read is checked
//     against its record's checksum and its address (SHA-256), and a
//     manifest and table indexes are checked before use; damage is an
//     error wrapping chunks.ErrCorrupt, never data. A table file a clone
//     adopts whole is checked the same way, every chunk of it, before
//     the store names it (chunks.FileStore.AddTable).
//   - Copy holds in memory the addresses the source holds (about 60 bytes
//     each) and spools the chunks it reads to a temporary file.
package remotes
