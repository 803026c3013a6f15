package chunks

// FormatVersion is the version of the file store's on-disk formats (journal,
// table files, manifest). Each file carries it; a store written by a newer
// version is refused rather than misread.
const FormatVersion = 1

// maxChunkSize bounds one chunk's bytes, so that a damaged length can never
// make a decoder allocate without limit. Prolly tree nodes are a few KiB.
const maxChunkSize = 64 << 20
