package chunks

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Codec says how a chunk's bytes are stored on disk. It is one byte in the
// journal and in table files; its values never change meaning.
//
// S2 (github.com/klauspost/compress/s2, a faster relative of Snappy) was
// chosen by measurement on 4 KiB tree-node-like chunks (see
// docs/BENCHMARKS.md): it halves them, encodes at Snappy's speed and decodes
// a little faster; zstd shrinks them 16% more but encodes six times slower
// and decodes four times slower, and S2 (pierrec/lz4) decodes twice as fast
// but encodes three times slower, which halves commit throughput. So the
// journal, which every commit writes, is S2; a garbage collection, which
// rewrites every live chunk once in the background, stores them in zstd
// where that is smaller (a quarter smaller than S2 on a history's tree
// nodes, see docs/BENCHMARKS.md), in table files of format version 2.
type Codec uint8

const (
	// CodecRaw stores the chunk's bytes as they are.
	CodecRaw Codec = 0
	// CodecS2 stores an S2 block (its header holds the decoded length).
	CodecS2 Codec = 1
	// CodecZstd stores one zstd frame (github.com/klauspost/compress/zstd;
	// single segment, its header holding the decoded length; no frame
	// checksum, the record's covers it). Only table files of version 2
	// hold it.
	CodecZstd Codec = 2
)

// zstdCodec is a store's zstd encoder and decoder, made on first use and
// safe for concurrent use.
type zstdCodec struct {
	once sync.Once
	enc  *zstd.Encoder
	dec  *zstd.Decoder
	err  error
}

func (z *zstdCodec) init() error {
	z.once.Do(func() {
		z.enc, z.err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false),
			zstd.WithSingleSegment(true), zstd.WithEncoderConcurrency(1))
		if z.err == nil {
			z.dec, z.err = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxChunkSize), zstd.WithDecoderMaxWindow(maxChunkSize))
		}
	})
	return z.err
}

// encode returns data as a zstd frame.
func (z *zstdCodec) encode(data []byte) ([]byte, error) {
	if err := z.init(); err != nil {
		return nil, err
	}
	return z.enc.EncodeAll(data, nil), nil
}

// decode returns the bytes of a zstd frame, which must hold at most
// maxChunkSize of them.
func (z *zstdCodec) decode(stored []byte) ([]byte, error) {
	if z == nil {
		return nil, fmt.Errorf("%w: a zstd chunk where none may be", ErrCorrupt)
	}
	if err := z.init(); err != nil {
		return nil, err
	}
	var h zstd.Header
	if err := h.Decode(stored); err != nil || !h.HasFCS || h.FrameContentSize > maxChunkSize {
		return nil, fmt.Errorf("%w: zstd chunk header (%v)", ErrCorrupt, err)
	}
	out, err := z.dec.DecodeAll(stored, make([]byte, 0, h.FrameContentSize))
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %v", ErrCorrupt, err)
	}
	if uint64(len(out)) != h.FrameContentSize {
		return nil, fmt.Errorf("%w: zstd chunk of %d bytes, its header says %d", ErrCorrupt, len(out), h.FrameContentSize)
	}
	return out, nil
}

// recompress returns the zstd form of a chunk stored under codec, if it is
// smaller than stored; otherwise codec and stored as they are.
func (z *zstdCodec) recompress(codec Codec, stored []byte) (Codec, []byte, error) {
	if codec == CodecZstd || len(stored) < 64 {
		return codec, stored, nil
	}
	data, err := decodeOwned(codec, stored, z)
	if err != nil {
		return 0, nil, err
	}
	enc, err := z.encode(data)
	if err != nil {
		return 0, nil, err
	}
	if len(enc) < len(stored) {
		return CodecZstd, enc, nil
	}
	return codec, stored, nil
}

func (c Codec) String() string {
	switch c {
	case CodecRaw:
		return "raw"
	case CodecS2:
		return "s2"
	case CodecZstd:
		return "zstd"
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

// tableCodec returns the form in which a table file stores a chunk the
// journal stored as codec and stored: a raw chunk (the journal keeps every
// chunk raw) in S2 where that is smaller, unless the store keeps chunks
// raw (Options.DisableCompression); any other as it is.
func (s *FileStore) tableCodec(codec Codec, stored []byte) (Codec, []byte) {
	if codec != CodecRaw || s.codec == CodecRaw {
		return codec, stored
	}
	return encodeChunk(s.codec, stored)
}

// decodeChunk returns the chunk's bytes from their stored form. The result
// never aliases stored.
func decodeChunk(c Codec, stored []byte, z *zstdCodec) ([]byte, error) {
	if c == CodecRaw {
		return append([]byte(nil), stored...), nil
	}
	return decodeOwned(c, stored, z)
}

// decodeOwned is decodeChunk for stored bytes in a buffer the caller owns
// and will not reuse: a raw chunk is returned without a copy. z decodes
// zstd chunks; nil where none may be (a journal).
func decodeOwned(c Codec, stored []byte, z *zstdCodec) ([]byte, error) {
	switch c {
	case CodecRaw:
		return stored, nil
	case CodecZstd:
		return z.decode(stored)
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
