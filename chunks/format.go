package chunks

// FormatVersion is the version of the file store's manifest format. The
// file carries it; a store written by a newer version is refused rather
// than misread.
const FormatVersion = 1

// JournalFormatVersion is the version of the journals this build writes
// (record.go); it reads versions 1 to this one, and a journal of a newer
// version is refused rather than misread.
const JournalFormatVersion = 3

// TableFormatVersion is the version of the table files this build writes
// (table.go); it reads versions 1 to this one.
const TableFormatVersion = 2

// maxChunkSize bounds one chunk's bytes, so that a damaged length can never
// make a decoder allocate without limit. Prolly tree nodes are a few KiB.
const maxChunkSize = 64 << 20
