package chunks

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/pierrec/lz4/v4"
)

// Codec says how a chunk's bytes are stored on disk. It is one byte in the
// journal and in table files; its values never change meaning.
//
// LZ4 was chosen over Snappy and zstd by measurement on 4 KiB tree-node-like
// chunks (see docs/BENCHMARKS.md): it decodes about twice as fast as Snappy
// for a slightly lower ratio (0.56 against 0.50), and every tree read pays
// the decode.
type Codec uint8

const (
	// CodecRaw stores the chunk's bytes as they are.
	CodecRaw Codec = 0
	// CodecLZ4 stores | uncompressed length uvarint | LZ4 block |.
	CodecLZ4 Codec = 1
)

func (c Codec) String() string {
	switch c {
	case CodecRaw:
		return "raw"
	case CodecLZ4:
		return "lz4"
	default:
		return fmt.Sprintf("codec(%d)", uint8(c))
	}
}

var lz4Compressors = sync.Pool{New: func() any { return new(lz4.Compressor) }}

// encodeChunk returns the stored form of data under the preferred codec, and
// the codec actually used: a chunk that does not shrink by at least 1/8 is
// stored raw, so incompressible data costs no decoding on reads.
func encodeChunk(preferred Codec, data []byte) (Codec, []byte) {
	if preferred == CodecLZ4 && len(data) >= 64 {
		buf := make([]byte, binary.MaxVarintLen64+lz4.CompressBlockBound(len(data)))
		n := binary.PutUvarint(buf, uint64(len(data)))
		c := lz4Compressors.Get().(*lz4.Compressor)
		m, err := c.CompressBlock(data, buf[n:])
		lz4Compressors.Put(c)
		if err == nil && m > 0 && n+m < len(data)-len(data)/8 {
			return CodecLZ4, buf[:n+m]
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
	case CodecLZ4:
		size, n := binary.Uvarint(stored)
		if n <= 0 {
			return nil, fmt.Errorf("%w: lz4 chunk has a bad length prefix", ErrCorrupt)
		}
		if size > maxChunkSize {
			return nil, fmt.Errorf("%w: lz4 chunk claims %d bytes, more than the %d allowed", ErrCorrupt, size, maxChunkSize)
		}
		out := make([]byte, size)
		m, err := lz4.UncompressBlock(stored[n:], out)
		if err != nil {
			return nil, fmt.Errorf("%w: lz4: %v", ErrCorrupt, err)
		}
		if uint64(m) != size {
			return nil, fmt.Errorf("%w: lz4 chunk decodes to %d bytes, its prefix says %d", ErrCorrupt, m, size)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%w: unknown codec %d", ErrCorrupt, uint8(c))
	}
}
