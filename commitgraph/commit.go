package commitgraph

import (
	"fmt"
	"slices"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
)

// Commit chunk format, version 3 (commitVersion). Integers are big-endian.
//
//	+--------------------------------------------------------------+
//	| magic "VCMT" [4] | version u8 (3, or 2 or 1: see below)       |
//	| root value address [20]                                      |
//	| closure base address [20]  (zero: an empty base)             |
//	| tail count u8 | tail address [20] x (count - 1)   (version 3)|
//	| height u64                 (1 for a root commit)             |
//	| time i64                   (milliseconds since the Unix epoch)|
//	| parent count u16 | parent address [20] x count               |
//	| author name:  len u16 | bytes                                |
//	| author email: len u16 | bytes                                |
//	| flags u8: bit 0 = a committer follows (clear: the author),    |
//	|           bit 1 = an author time follows (clear: time)        |
//	|   [committer name: len u16 | bytes]            (bit 0)        |
//	|   [committer email: len u16 | bytes]           (bit 0)        |
//	|   [author time i64 (milliseconds)]             (bit 1)        |
//	| message: len u32 | bytes   (at most 1 MiB)                    |
//	+--------------------------------------------------------------+
//
// The closure of a commit (package closure) is a base, a prolly set, and
// a tail: the commits of its first-parent chain above the base, newest
// first, none of them a merge, at heights height-1, height-2, ... The
// tail's first commit is the first parent, so the chunk stores the count
// and the rest. A commit of a linear history extends its parent's tail
// (no closure node written) until the tail holds closure.MaxTail
// commits; the next one writes a base. A commit with a tail has one
// parent; its base is empty only when the tail reaches the root commit
// (height - count = 1).
//
// The first parent is the mainline. One canonical encoding per commit: the
// decoder rejects a commit without parents whose height is not 1 or whose
// closure is not empty, a commit with parents whose height is 1 or whose
// closure is empty, a tail on a commit of several parents or longer than
// closure.MaxTail or below height 1, zero or repeated parent addresses,
// flags other than bits 0 and 1, a committer equal to the author given
// explicitly, an author time equal to the time given explicitly, and
// trailing bytes. The height being 1 + the greatest
// parent height and the closure being right (the tail being the chain,
// the base the closure below it) are checked by the graph when it writes
// a commit, not by the decoder (which sees one chunk). Heights above
// closure.MaxHeight (2^63 - 1) are rejected.
//
// The flags byte was the committer flag (0 or 1) until the author time
// (bit 1) came; a commit without an author time of its own has the bytes
// it had then, and a build from before the author time refuses a commit
// with one as corrupt rather than misread it. The flags are the same in
// every version.
//
// Versions. Version 3 adds the tail; every closure of versions 1 and 2 is
// a base alone, and their bytes lack the tail count. Versions 2 and 3:
// the closure holds the merge-child aliases of every merge among the
// commit's ancestors (see package closure), and every parent is of
// version 2 or 3. Version 1 (the first format): the closure may lack
// aliases. All three are read. This build writes version 3 when every
// parent is of version 2 or 3 (or there is none), and version 1
// otherwise, with a closure built without adding aliases and without a
// tail, as a version-1 writer did: a history begun in version 1 stays
// version 1. Children and dolt_diff_<t>'s from_commit lookups of a
// version-1 head fall back to a scan of the head's closure above the
// commit (correct, slower); IsAncestor, Log, MergeBase and the rest are
// the same for all.

const commitMagic = "VCMT"

// The commit chunk format versions this build reads; it writes
// commitVersion.
// CommitFormatVersion is the version of the commit chunks this build
// writes (on histories of version 2 or 3).
const CommitFormatVersion = commitVersion

const (
	commitVersion1 = 1 // closures without merge-child aliases
	commitVersion2 = 2 // closures with them
	commitVersion  = 3 // and with a tail
)

// The bits of a commit's flags byte.
const (
	flagCommitter  = 1 << 0 // a committer apart from the author follows
	flagAuthorTime = 1 << 1 // an author time apart from the time follows
)

// maxParents bounds the parents of one commit (an octopus merge).
const maxParents = 1<<16 - 1

// Signature names a person: an author, committer or tagger.
type Signature struct {
	Name  string
	Email string
}

// Meta is the descriptive part of a commit.
type Meta struct {
	Author Signature
	// Committer is who made the commit, when not the author; the zero
	// Signature means the author.
	Committer Signature
	// Time is when the commit was made (the committer's time), kept to
	// the millisecond.
	Time time.Time
	// AuthorTime is when the author made the change, when not Time; the
	// zero time means Time. Kept to the millisecond.
	AuthorTime time.Time
	Message    string
}

// AuthorWhen returns the author time, or the commit's time when no other
// author time is recorded.
func (m Meta) AuthorWhen() time.Time {
	if m.AuthorTime.IsZero() {
		return m.Time
	}
	return m.AuthorTime
}

// CommitterOrAuthor returns the committer, or the author when no other
// committer is recorded.
func (m Meta) CommitterOrAuthor() Signature {
	if m.Committer == (Signature{}) {
		return m.Author
	}
	return m.Committer
}

// Commit is a decoded commit chunk.
type Commit struct {
	// Version is the chunk's format version: 3 for commits whose closure
	// holds merge-child aliases and may have a tail (every commit this
	// build writes on a version-2 or 3 history), 2 for older ones with
	// aliases, 1 for older ones still. Zero encodes as the current
	// version.
	Version uint8
	// Addr is the address of the commit's chunk (not part of its bytes).
	Addr chunks.Address
	// Root is the address of the commit's root value.
	Root chunks.Address
	// Parents are the parent commits, the mainline first.
	Parents []chunks.Address
	// Height is 1 for a root commit and 1 + the greatest parent height
	// otherwise.
	Height closure.Height
	// Closure is the address of the closure's base: every strict ancestor
	// below the tail.
	Closure chunks.Address
	// Tail is the closure's tail (version 3): the first-parent chain
	// above the base, newest first; Tail[0] is the first parent. Empty
	// when the base holds every ancestor.
	Tail []chunks.Address
	Meta Meta
}

// Entry returns the commit's closure entry (height, address).
func (c *Commit) Entry() closure.Entry { return closure.Entry{Height: c.Height, Addr: c.Addr} }

// HasAliases reports whether the commit's closure holds the merge-child
// aliases of every merge among its ancestors (format version 2).
func (c *Commit) HasAliases() bool { return c.Version >= commitVersion2 }

// IsMerge reports whether the commit has more than one parent.
func (c *Commit) IsMerge() bool { return len(c.Parents) > 1 }

// encodeCommit returns the chunk bytes of c (whose Addr is ignored).
func encodeCommit(c *Commit) ([]byte, error) {
	w := &writer{}
	v := c.Version
	if v == 0 {
		v = commitVersion
	}
	if v > commitVersion {
		w.fail(fmt.Errorf("commitgraph: commit format version %d, this build writes %d", v, commitVersion))
	}
	w.versionedHeader(commitMagic, v)
	w.addr(c.Root)
	w.addr(c.Closure)
	if v >= commitVersion {
		if len(c.Tail) > closure.MaxTail || (len(c.Tail) > 0 && (len(c.Parents) != 1 || c.Tail[0] != c.Parents[0])) {
			w.fail(fmt.Errorf("commitgraph: commit tail %v with parents %v", c.Tail, c.Parents))
		}
		w.u8(uint8(len(c.Tail)))
		for _, a := range c.Tail[min(1, len(c.Tail)):] {
			w.addr(a)
		}
	} else if len(c.Tail) > 0 {
		w.fail(fmt.Errorf("commitgraph: a commit of format %d has no tail", v))
	}
	w.u64(uint64(c.Height))
	w.millis(c.Meta.Time)
	if len(c.Parents) > maxParents {
		w.fail(ErrTooLarge)
	}
	w.u16(uint16(len(c.Parents)))
	for _, p := range c.Parents {
		w.addr(p)
	}
	w.short("author name", c.Meta.Author.Name)
	w.short("author email", c.Meta.Author.Email)
	var flags uint8
	cm := c.Meta.Committer
	if cm != (Signature{}) && cm != c.Meta.Author {
		flags |= flagCommitter
	}
	at := c.Meta.AuthorTime
	if !at.IsZero() && at.UnixMilli() != c.Meta.Time.UnixMilli() {
		flags |= flagAuthorTime
	}
	w.u8(flags)
	if flags&flagCommitter != 0 {
		w.short("committer name", cm.Name)
		w.short("committer email", cm.Email)
	}
	if flags&flagAuthorTime != 0 {
		w.millis(at)
	}
	w.message("message", c.Meta.Message)
	return w.result()
}

// DecodeCommit decodes a commit chunk stored at addr. It returns an error
// wrapping ErrBadChunk (chunks.IsCorrupt) for bytes that are not the
// canonical encoding of a commit; it never panics.
func DecodeCommit(addr chunks.Address, b []byte) (*Commit, error) {
	r := &reader{b: b, kind: "commit"}
	c := &Commit{Addr: addr}
	c.Version = r.versionedHeader(commitMagic, commitVersion1, commitVersion)
	c.Root = r.addr("root")
	c.Closure = r.addr("closure")
	var rest []chunks.Address
	tail := 0
	if c.Version >= commitVersion {
		tail = int(r.u8("tail count"))
		if r.err == nil && tail > closure.MaxTail {
			return nil, badChunk("commit: a tail of %d commits, at most %d", tail, closure.MaxTail)
		}
		for i := 1; i < tail; i++ {
			rest = append(rest, r.addr("tail"))
		}
	}
	c.Height = closure.Height(r.u64("height"))
	c.Meta.Time = r.millis("time")
	n := int(r.u16("parent count"))
	if r.err == nil && n*chunks.AddressSize > len(b)-r.off {
		return nil, badChunk("commit: %d parents in %d bytes", n, len(b)-r.off)
	}
	if n > 0 {
		c.Parents = make([]chunks.Address, n)
	}
	for i := range c.Parents {
		c.Parents[i] = r.addr("parent")
	}
	c.Meta.Author.Name = r.short("author name")
	c.Meta.Author.Email = r.short("author email")
	f := r.u8("flags")
	if r.err == nil && f&^(flagCommitter|flagAuthorTime) != 0 {
		return nil, badChunk("commit: flags %#x", f)
	}
	if f&flagCommitter != 0 {
		c.Meta.Committer.Name = r.short("committer name")
		c.Meta.Committer.Email = r.short("committer email")
		if r.err == nil && (c.Meta.Committer == c.Meta.Author || c.Meta.Committer == (Signature{})) {
			return nil, badChunk("commit: explicit committer equal to the author or empty")
		}
	}
	if f&flagAuthorTime != 0 {
		c.Meta.AuthorTime = r.millis("author time")
		if r.err == nil && c.Meta.AuthorTime.Equal(c.Meta.Time) {
			return nil, badChunk("commit: explicit author time equal to the time")
		}
	}
	c.Meta.Message = r.message("message")
	if err := r.done(); err != nil {
		return nil, err
	}
	if tail > 0 {
		if len(c.Parents) != 1 {
			return nil, badChunk("commit: a tail and %d parents", len(c.Parents))
		}
		c.Tail = append([]chunks.Address{c.Parents[0]}, rest...)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// validate checks what one commit chunk can tell about itself.
func (c *Commit) validate() error {
	switch {
	case len(c.Parents) == 0 && c.Height != 1:
		return badChunk("commit: no parents and height %d", c.Height)
	case len(c.Parents) == 0 && !c.Closure.IsEmpty():
		return badChunk("commit: no parents and a closure")
	case len(c.Parents) > 0 && c.Height < 2:
		return badChunk("commit: %d parents and height %d", len(c.Parents), c.Height)
	case uint64(len(c.Tail)) >= uint64(c.Height):
		return badChunk("commit: a tail of %d commits at height %d", len(c.Tail), c.Height)
	case len(c.Parents) > 0 && c.Closure.IsEmpty() && uint64(c.Height)-uint64(len(c.Tail)) != 1:
		return badChunk("commit: %d parents and no closure below height %d", len(c.Parents), c.Height-closure.Height(len(c.Tail)))
	case c.Height > closure.MaxHeight:
		return badChunk("commit: height %d above %d", c.Height, closure.MaxHeight)
	}
	for i, a := range c.Tail {
		if a.IsEmpty() || slices.Contains(c.Tail[:i], a) {
			return badChunk("commit: tail %d is the zero address or repeated", i)
		}
	}
	for i, p := range c.Parents {
		if p.IsEmpty() {
			return badChunk("commit: parent %d is the zero address", i)
		}
		if slices.Contains(c.Parents[:i], p) {
			return badChunk("commit: parent %s appears twice", p)
		}
	}
	return nil
}
