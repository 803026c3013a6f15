package commitgraph

import (
	"time"

	"github.com/verso-db/verso/chunks"
)

// Tag chunk format, version 1. Integers are big-endian.
//
//	+----------------------------------------------------------+
//	| magic "VTAG" [4] | version u8 (1)                         |
//	| commit address [20]                                      |
//	| time i64           (milliseconds since the Unix epoch)    |
//	| tagger name:  len u16 | bytes                            |
//	| tagger email: len u16 | bytes                            |
//	| message: len u32 | bytes   (at most 1 MiB)                |
//	+----------------------------------------------------------+
//
// The tag's name is not in the chunk: it is the key of the ref that points
// to it (refs/tags/<name>), so equal tags under two names share a chunk.

const tagMagic = "VTAG"

// Tag is a decoded tag chunk, with the name of the ref that points to it.
type Tag struct {
	Name    string         // from the ref, not stored in the chunk
	Addr    chunks.Address // the tag chunk's address
	Commit  chunks.Address
	Tagger  Signature
	Time    time.Time // kept to the millisecond
	Message string
}

// TagMeta is what a caller gives to create a tag.
type TagMeta struct {
	Tagger  Signature
	Time    time.Time
	Message string
}

func encodeTag(t *Tag) ([]byte, error) {
	w := &writer{}
	w.header(tagMagic)
	w.addr(t.Commit)
	w.millis(t.Time)
	w.short("tagger name", t.Tagger.Name)
	w.short("tagger email", t.Tagger.Email)
	w.message("tag message", t.Message)
	return w.result()
}

// DecodeTag decodes a tag chunk stored at addr. It returns an error
// wrapping ErrBadChunk for bytes that are not a tag; it never panics.
func DecodeTag(addr chunks.Address, b []byte) (*Tag, error) {
	r := &reader{b: b, kind: "tag"}
	r.header(tagMagic)
	t := &Tag{Addr: addr}
	t.Commit = r.addr("commit")
	t.Time = r.millis("time")
	t.Tagger.Name = r.short("tagger name")
	t.Tagger.Email = r.short("tagger email")
	t.Message = r.message("message")
	if err := r.done(); err != nil {
		return nil, err
	}
	if t.Commit.IsEmpty() {
		return nil, badChunk("tag: zero commit address")
	}
	return t, nil
}
