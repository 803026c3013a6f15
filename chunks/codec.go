package chunks

import (
	"fmt"

	"github.com/golang/snappy"
)

// Codec says how a chunk's bytes are stored on disk. It is one byte in the
// journal and in table files; its values never change meaning.
type Codec uint8

const (
	// CodecRaw stores the chunk's bytes as they are.
	CodecRaw Codec = 0
	// CodecSnappy stores the chunk's bytes compressed with Snappy (the
	// block format, without framing).
	CodecSnappy Codec = 1
)

func (c Codec) String() string {
	switch c {
	case CodecRaw:
		return "raw"
	case CodecSnappy:
		return "snappy"
	default:
		return fmt.Sprintf("codec(%d)", uint8(c))
	}
}

// encodeChunk returns the stored form of data under the preferred codec, and
// the codec actually used: a chunk that does not shrink by at least 1/8 is
// stored raw, so incompressible data costs no decompression on reads.
func encodeChunk(preferred Codec, data []byte) (Codec, []byte) {
	if preferred == CodecSnappy && len(data) >= 64 {
		enc := snappy.Encode(nil, data)
		if len(enc) < len(data)-len(data)/8 {
			return CodecSnappy, enc
		}
	}
	return CodecRaw, data
}

// decodeChunk returns the chunk's bytes from their stored form. The result
// never aliases stored.
func decodeChunk(c Codec, stored []byte) ([]byte, error) {
	switch c {
	case CodecRaw:
		return append([]byte(nil), stored...), nil
	case CodecSnappy:
		n, err := snappy.DecodedLen(stored)
		if err != nil {
			return nil, fmt.Errorf("%w: snappy: %v", ErrCorrupt, err)
		}
		if n > maxChunkSize {
			return nil, fmt.Errorf("%w: snappy chunk claims %d bytes, more than the %d allowed", ErrCorrupt, n, maxChunkSize)
		}
		out, err := snappy.Decode(make([]byte, n), stored)
		if err != nil {
			return nil, fmt.Errorf("%w: snappy: %v", ErrCorrupt, err)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%w: unknown codec %d", ErrCorrupt, uint8(c))
	}
}
