package chunks

import (
	"fmt"

	"github.com/klauspost/compress/s2"
)

// Codec says how a chunk's bytes are stored on disk. It is one byte in the
// journal and in table files; its values never change meaning.
//
// S2 (github.com/klauspost/compress/s2, a faster relative of Snappy) was
// chosen by measurement on 4 KiB tree-node-like chunks (see
// docs/BENCHMARKS.md): it halves them, encodes at Snappy's speed and decodes
// a little faster; zstd shrinks them 16% more but encodes six times slower
// and decodes four times slower, and S2 (pierrec/lz4) decodes twice as fast
// but encodes three times slower, which halves commit throughput.
type Codec uint8

const (
	// CodecRaw stores the chunk's bytes as they are.
	CodecRaw Codec = 0
	// CodecS2 stores an S2 block (its header holds the decoded length).
	CodecS2 Codec = 1
)

func (c Codec) String() string {
	switch c {
	case CodecRaw:
		return "raw"
	case CodecS2:
		return "s2"
	default:
		return fmt.Sprintf("codec(%d)", uint8(c))
	}
}

// encodeChunk returns the stored form of data under the preferred codec, and
// the codec actually used: a chunk that does not shrink by at least 1/8 is
// stored raw, so incompressible data costs no decoding on reads.
func encodeChunk(preferred Codec, data []byte) (Codec, []byte) {
	if preferred == CodecS2 && len(data) >= 64 {
		enc := s2.Encode(nil, data)
		if len(enc) < len(data)-len(data)/8 {
			return CodecS2, enc
		}
	}
	return CodecRaw, data
}

// decodeChunk returns the chunk's bytes from their stored form. The result
// never aliases stored.
func decodeChunk(c Codec, stored []byte) ([]byte, error) {
	if c == CodecRaw {
		return append([]byte(nil), stored...), nil
	}
	return decodeOwned(c, stored)
}

// decodeOwned is decodeChunk for stored bytes in a buffer the caller owns
// and will not reuse: a raw chunk is returned without a copy.
func decodeOwned(c Codec, stored []byte) ([]byte, error) {
	switch c {
	case CodecRaw:
		return stored, nil
	case CodecS2:
		n, err := s2.DecodedLen(stored)
		if err != nil {
			return nil, fmt.Errorf("%w: s2: %v", ErrCorrupt, err)
		}
		if n > maxChunkSize {
			return nil, fmt.Errorf("%w: s2 chunk claims %d bytes, more than the %d allowed", ErrCorrupt, n, maxChunkSize)
		}
		out, err := s2.Decode(make([]byte, n), stored)
		if err != nil {
			return nil, fmt.Errorf("%w: s2: %v", ErrCorrupt, err)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%w: unknown codec %d", ErrCorrupt, uint8(c))
	}
}
