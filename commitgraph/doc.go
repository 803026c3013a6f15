// Package commitgraph is verso's versioning core: commits, root values,
// refs (branches, tags, working sets) and the queries over the commit graph.
//
// # Caveats
//
//   - Decoders of stored bytes never panic; they return errors wrapping
//     ErrBadChunk (chunks.IsCorrupt).
package commitgraph
