// Package prolly holds verso's ordered data: order-preserving key tuples,
// compact value tuples, and the prolly tree, a content-addressed ordered map
// stored as chunks in a chunks.Store. Every table, index, commit closure and
// event index is a prolly tree.
//
// # Tuples
//
// Value is one typed field (Null, Int, Uint, Float32, Float64, Dec, String,
// Bytes, Date, Time, Datetime, Timestamp, Enum, Set; JSON and Ref in value
// tuples only). EncodeKey writes a key whose bytes.Compare order is the
// tuples' order (CompareTuples), with NULL first and Desc fields reversed;
// DecodeKey reads it back. EncodeTuple writes a row payload, and Tuple reads
// field i of it without decoding the others. Both formats are documented in
// key.go and tuple.go.
//
// # Caveats
//
//   - Strings are ordered by their UTF-8 bytes (a binary collation). A
//     case-insensitive or locale collation must be applied by the caller
//     (for example by storing a collation key).
//   - Integers of every width encode as int64 or uint64; the width is a
//     matter of the schema, not of the encoding.
//   - -0 is stored as 0 and every NaN as one NaN, which sorts after +Inf.
//   - Decimals keep their value, not their scale: 1.50 and 1.5 are one key.
//   - Decoders return an error wrapping ErrBadTuple or ErrBadNode (both
//     chunks.IsCorrupt) for bytes that are not a canonical encoding; they
//     never panic. Encoders panic on values no constructor makes.
package prolly
