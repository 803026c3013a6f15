package commitgraph

import (
	"fmt"
	"slices"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/closure"
)

// Commit chunk format, version 2 (commitVersion). Integers are big-endian.
//
//	+--------------------------------------------------------------+
//	| magic "VCMT" [4] | version u8 (2, or 1: see below)            |
//	| root value address [20]                                      |
//	| closure address [20]       (zero for a root commit)          |
//	| height u64                 (1 for a root commit)             |
//	| time i64                   (milliseconds since the Unix epoch)|
//	| parent count u16 | parent address [20] x count               |
//	| author name:  len u16 | bytes                                |
//	| author email: len u16 | bytes                                |
//	| committer u8: 0 = the author, 1 = name and email follow       |
//	|   [committer name: len u16 | bytes]                           |
//	|   [committer email: len u16 | bytes]                          |
//	| message: len u32 | bytes   (at most 1 MiB)                    |
//	+--------------------------------------------------------------+
//
// The first parent is the mainline. One canonical encoding per commit: the
// decoder rejects a commit without parents whose height is not 1 or whose
// closure is not empty, a commit with parents whose height is 1 or whose
// closure is empty, zero or repeated parent addresses, a committer flag
// other than 0 and 1, a committer equal to the author given explicitly,
// and trailing bytes. The height being 1 + the greatest parent height and
// the closure being right are checked by the graph when it writes a commit,
// not by the decoder (which sees one chunk). Heights above
// closure.MaxHeight (2^63 - 1) are rejected.
//
// Versions. The bytes of versions 1 and 2 are laid out alike; the version
// says what the closure holds. Version 2: the closure holds the
// merge-child aliases of every merge among the commit's ancestors (see
// package closure), and every parent is of version 2. Version 1 (the first
// format): the closure may lack aliases. Both are read. This build writes
// version 2 when every parent is of version 2 (or there is none), and
// version 1 otherwise, with a closure built without adding aliases, as a
// version-1 writer did: a history begun in version 1 stays version 1.
// Children and dolt_diff_<t>'s from_commit lookups of a version-1 head
// fall back to a scan of the head's closure above the commit (correct,
// slower); IsAncestor, Log, MergeBase and the rest are the same for both.

const commitMagic = "VCMT"

// The commit chunk format versions this build reads; it writes
// commitVersion.
const (
	commitVersion1 = 1 // closures without merge-child aliases
	commitVersion  = 2 // closures with them
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
	// Time is when the commit was made, kept to the millisecond.
	Time    time.Time
	Message string
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
	// Version is the chunk's format version: 2 for commits whose closure
	// holds merge-child aliases (every commit this build writes on a
	// version-2 history), 1 for older ones. Zero encodes as the current
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
	// Closure is the address of the closure: every strict ancestor.
	Closure chunks.Address
	Meta    Meta
}

// Entry returns the commit's closure entry (height, address).
func (c *Commit) Entry() closure.Entry { return closure.Entry{Height: c.Height, Addr: c.Addr} }

// HasAliases reports whether the commit's closure holds the merge-child
// aliases of every merge among its ancestors (format version 2).
func (c *Commit) HasAliases() bool { return c.Version >= commitVersion }

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
	if cm := c.Meta.Committer; cm == (Signature{}) || cm == c.Meta.Author {
		w.u8(0)
	} else {
		w.u8(1)
		w.short("committer name", cm.Name)
		w.short("committer email", cm.Email)
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
	switch f := r.u8("committer flag"); {
	case r.err != nil:
	case f == 1:
		c.Meta.Committer.Name = r.short("committer name")
		c.Meta.Committer.Email = r.short("committer email")
		if r.err == nil && (c.Meta.Committer == c.Meta.Author || c.Meta.Committer == (Signature{})) {
			return nil, badChunk("commit: explicit committer equal to the author or empty")
		}
	case f != 0:
		return nil, badChunk("commit: committer flag %d", f)
	}
	c.Meta.Message = r.message("message")
	if err := r.done(); err != nil {
		return nil, err
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
	case len(c.Parents) > 0 && c.Closure.IsEmpty():
		return badChunk("commit: %d parents and no closure", len(c.Parents))
	case c.Height > closure.MaxHeight:
		return badChunk("commit: height %d above %d", c.Height, closure.MaxHeight)
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
