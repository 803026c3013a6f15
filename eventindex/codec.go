package eventindex

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	"github.com/verso-db/verso/prolly"
)

// Formats of the event log's keys and values. Every key is a prolly key
// tuple (order-preserving, see prolly/key.go) except the event-id index's,
// whose order does not matter. Values are this package's own small
// records, each beginning with a format version byte; integers are
// unsigned varints (encoding/binary Uvarint, minimal length: a longer
// encoding of the same number is rejected) unless said otherwise.
//
//	map              key                               value
//	events/log       (Uint position)                   event record
//	events/by-stream (String stream, Uint number)      uvarint position
//	events/by-category (String category, Uint position)  cross value (hash of the type)
//	events/by-type   (String type, Uint position)      cross value (hash of the category)
//	events/by-id     (String stream, Bytes event id)   uvarint position
//	events/streams   (Null)                            head record
//	                 (String stream)                   stream record
//	events/by-pair   (String category, String type, Uint position)  empty
//
// The pair index counts the events of each (category, event type) pair
// in O(log n) (Log.PairStats: dolt_event_stats' pair rows): one seek per
// pair, a count from the subtree counts. It costs about 35 bytes an event
// stored (BenchmarkIndexSize: 100,000 events, 10-character categories,
// 11-character types; the category index 26, the whole log 229). It came
// after the other maps: a log written before it has none while it holds
// events, which Log.pairsIndexed tells from its count (whole: one entry
// an event); writes keep such a log's pair index empty, PairStats reads
// the log instead, and Rebuild builds it.
//
// The event-id index is scoped by stream, as idempotency is: an append
// is a repeat when its stream holds the ids, and the same id may appear
// in two streams. Its keys cluster by stream, so a commit rewrites one
// leaf per stream it appends to, not one per (random) UUID.
//
// The key of a category or type entry holds the position, the pointer
// to the event in the log, and the name the read asked for: an index
// read is one range scan. Its value, the cross value, holds a hash of
// the event's other name (its type in the category index, its category
// in the type index), so that a read by category AND type scans one of
// the two ranges and reads from the log only the events whose hash
// matches (and checks their names there: hashes collide).
//
// Cross value, version 1:
//
//	+----+-------------+
//	| 01 | hash        |
//	+----+-------------+
//	  1    4 bytes, big-endian: 32-bit FNV-1a of the name's UTF-8 bytes
//
// The empty value, which every entry held before version 1, carries no
// hash: a read takes its event as a candidate and checks it in the log.
// Other values are corrupt.
//
// Event record, version 1:
//
//	+----+---------+--------+--------+----+---------+------+---------+-------+---------+----------+
//	| 01 | len(s)  | stream | number | id | len(t)  | type | created | len(d)| data    | len(m)   | metadata
//	+----+---------+--------+--------+----+---------+------+---------+-------+---------+----------+
//	  1   uvarint            uvarint   16  uvarint          8 bytes   uvarint           uvarint
//
// created is microseconds since the Unix epoch (UTC) as a big-endian
// int64. Stream and type are UTF-8.
//
// Stream record, version 1: 01, a flags byte, then uvarints: next (the
// number the next event gets), first (the lowest number still stored),
// and, when their flag is set, max count, max age (microseconds) and
// truncate-before. Flags: 01 soft deleted, 02 hard deleted (tombstone),
// 04 max count, 08 max age, 10 truncate-before; other bits must be zero.
//
// Head record, version 1: 01, then the uvarint next position.
const recordVersion = 1

const (
	crossVersion = 1
	crossLen     = 5
)

// nameHash is the 32-bit FNV-1a hash of a name, as cross values hold it.
func nameHash(name string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return h
}

// encodeCross returns the cross value that holds the hash of name.
func encodeCross(name string) []byte {
	return binary.BigEndian.AppendUint32([]byte{crossVersion}, nameHash(name))
}

// decodeCross decodes a cross value: the hash, and whether it holds one
// (the empty value holds none).
func decodeCross(b []byte) (uint32, bool, error) {
	switch {
	case len(b) == 0:
		return 0, false, nil
	case len(b) != crossLen:
		return 0, false, corruptf("index value of %d bytes", len(b))
	case b[0] != crossVersion:
		return 0, false, corruptf("index value version %d", b[0])
	}
	return binary.BigEndian.Uint32(b[1:]), true, nil
}

const (
	flagSoftDeleted    = 0x01
	flagHardDeleted    = 0x02
	flagMaxCount       = 0x04
	flagMaxAge         = 0x08
	flagTruncateBefore = 0x10
	flagsKnown         = 0x1f
)

// encodeEvent appends the record of e (its position is the key, not part
// of the record).
func encodeEvent(dst []byte, e *Event) []byte {
	dst = append(dst, recordVersion)
	dst = binary.AppendUvarint(dst, uint64(len(e.Stream)))
	dst = append(dst, e.Stream...)
	dst = binary.AppendUvarint(dst, uint64(e.Number))
	dst = append(dst, e.ID[:]...)
	dst = binary.AppendUvarint(dst, uint64(len(e.Type)))
	dst = append(dst, e.Type...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.Created.UnixMicro()))
	dst = binary.AppendUvarint(dst, uint64(len(e.Data)))
	dst = append(dst, e.Data...)
	dst = binary.AppendUvarint(dst, uint64(len(e.Metadata)))
	dst = append(dst, e.Metadata...)
	return dst
}

// reader reads a record, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = corruptf("%s", what)
	}
}

func (r *reader) byte1(what string) byte {
	if r.err != nil || len(r.b) < 1 {
		r.fail(what)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || n != uvarintLen(v) {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(what string, n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail(what)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) lenBytes(what string) []byte { return r.bytes(what, r.uvarint(what)) }

func (r *reader) end(what string) {
	if r.err == nil && len(r.b) != 0 {
		r.fail(what + ": trailing bytes")
	}
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// decodeEvent decodes an event record; the event's Data and Metadata
// point into b.
func decodeEvent(pos Position, b []byte) (Event, error) {
	var e Event
	err := decodeEventInto(&e, pos, b, nil)
	return e, err
}

// decodeEventInto decodes an event record into *e (which it overwrites
// whole); Data and Metadata point into b. With names it takes stream and
// type strings from (and adds them to) the cache, which saves their
// allocations and UTF-8 checks across a read: names repeat.
func decodeEventInto(e *Event, pos Position, b []byte, names *nameCache) error {
	// The fixed fields are read inline: this runs once per event read.
	if len(b) < 1 || b[0] != recordVersion {
		if len(b) < 1 {
			return corruptf("event version")
		}
		return corruptf("event record version %d", b[0])
	}
	r := reader{b: b[1:]}
	stream := r.lenBytes("event stream")
	num := r.uvarint("event number")
	id := r.bytes("event id", 16)
	typ := r.lenBytes("event type")
	created := r.bytes("event created", 8)
	data := r.lenBytes("event data")
	meta := r.lenBytes("event metadata")
	r.end("event")
	if r.err != nil {
		return r.err
	}
	us := int64(binary.BigEndian.Uint64(created))
	if us == math.MinInt64 {
		return corruptf("event at %d: bad time", pos)
	}
	s, ok := names.get(stream, false)
	t, ok2 := names.get(typ, true)
	if !ok || !ok2 {
		return corruptf("event at %d: bad stream or type", pos)
	}
	if len(data) == 0 {
		data = nil
	}
	if len(meta) == 0 {
		meta = nil
	}
	*e = Event{Position: pos, Stream: s, Number: EventNumber(num), Type: t,
		Data: data, Metadata: meta, Created: microTime(us)}
	copy(e.ID[:], id)
	return nil
}

// nameCache hands out the strings of stream and type names a read
// decodes, each made (and checked: non-empty UTF-8) once. The last name
// of each kind is compared first: a read's events come in runs of one
// stream. A nil *nameCache makes a new string every time.
type nameCache struct {
	stream, typ string
	m           map[string]string
}

// get returns b, a stream or (isType) a type name, as a string, and
// whether it is a valid name.
func (c *nameCache) get(b []byte, isType bool) (string, bool) {
	if c == nil {
		return string(b), len(b) > 0 && utf8.Valid(b)
	}
	last := &c.stream
	if isType {
		last = &c.typ
	}
	if *last == string(b) && len(b) > 0 {
		return *last, true
	}
	s, ok := c.m[string(b)]
	if !ok {
		if len(b) == 0 || !utf8.Valid(b) {
			return "", false
		}
		if c.m == nil || len(c.m) > 4096 {
			c.m = make(map[string]string, 64)
		}
		s = string(b)
		c.m[s] = s
	}
	*last = s
	return s, true
}

// streamMeta is a stream's record in events/streams.
type streamMeta struct {
	Next           EventNumber // number of the next event appended
	First          EventNumber // lowest number still stored (== Next: none)
	SoftDeleted    bool
	HardDeleted    bool
	MaxCount       uint64      // 0: unset
	MaxAge         int64       // microseconds; 0: unset
	TruncateBefore EventNumber // 0: unset
}

func encodeStreamMeta(dst []byte, m *streamMeta) []byte {
	var flags byte
	if m.SoftDeleted {
		flags |= flagSoftDeleted
	}
	if m.HardDeleted {
		flags |= flagHardDeleted
	}
	if m.MaxCount > 0 {
		flags |= flagMaxCount
	}
	if m.MaxAge > 0 {
		flags |= flagMaxAge
	}
	if m.TruncateBefore > 0 {
		flags |= flagTruncateBefore
	}
	dst = append(dst, recordVersion, flags)
	dst = binary.AppendUvarint(dst, uint64(m.Next))
	dst = binary.AppendUvarint(dst, uint64(m.First))
	if m.MaxCount > 0 {
		dst = binary.AppendUvarint(dst, m.MaxCount)
	}
	if m.MaxAge > 0 {
		dst = binary.AppendUvarint(dst, uint64(m.MaxAge))
	}
	if m.TruncateBefore > 0 {
		dst = binary.AppendUvarint(dst, uint64(m.TruncateBefore))
	}
	return dst
}

func decodeStreamMeta(b []byte) (streamMeta, error) {
	r := reader{b: b}
	if v := r.byte1("stream version"); r.err == nil && v != recordVersion {
		return streamMeta{}, corruptf("stream record version %d", v)
	}
	flags := r.byte1("stream flags")
	if r.err == nil && flags&^flagsKnown != 0 {
		return streamMeta{}, corruptf("stream record flags %#x", flags)
	}
	var m streamMeta
	m.Next = EventNumber(r.uvarint("stream next"))
	m.First = EventNumber(r.uvarint("stream first"))
	m.SoftDeleted = flags&flagSoftDeleted != 0
	m.HardDeleted = flags&flagHardDeleted != 0
	if flags&flagMaxCount != 0 {
		m.MaxCount = r.uvarint("stream max count")
		if r.err == nil && m.MaxCount == 0 {
			r.fail("stream max count 0")
		}
	}
	if flags&flagMaxAge != 0 {
		a := r.uvarint("stream max age")
		if r.err == nil && (a == 0 || a > math.MaxInt64) {
			r.fail("stream max age")
		}
		m.MaxAge = int64(a)
	}
	if flags&flagTruncateBefore != 0 {
		m.TruncateBefore = EventNumber(r.uvarint("stream truncate-before"))
		if r.err == nil && m.TruncateBefore == 0 {
			r.fail("stream truncate-before 0")
		}
	}
	r.end("stream")
	if r.err != nil {
		return streamMeta{}, r.err
	}
	if m.First > m.Next {
		return streamMeta{}, corruptf("stream record first %d > next %d", m.First, m.Next)
	}
	return m, nil
}

func encodeHead(next Position) []byte {
	return binary.AppendUvarint([]byte{recordVersion}, uint64(next))
}

func decodeHead(b []byte) (Position, error) {
	r := reader{b: b}
	if v := r.byte1("head version"); r.err == nil && v != recordVersion {
		return 0, corruptf("head record version %d", v)
	}
	p := r.uvarint("head next")
	r.end("head")
	if r.err != nil {
		return 0, r.err
	}
	if p == 0 {
		return 0, corruptf("head next position 0")
	}
	return Position(p), nil
}

func encodePos(p Position) []byte { return binary.AppendUvarint(nil, uint64(p)) }

func decodePos(b []byte) (Position, error) {
	r := reader{b: b}
	p := r.uvarint("position")
	r.end("position")
	if r.err != nil {
		return 0, r.err
	}
	if p == 0 {
		return 0, corruptf("position 0")
	}
	return Position(p), nil
}

// Keys.

var headKey = prolly.EncodeKey(nil, prolly.Null())

func logKey(p Position) []byte { return prolly.EncodeKey(make([]byte, 0, 10), prolly.Uint(uint64(p))) }

func streamKey(stream string, n EventNumber) []byte {
	return prolly.EncodeKey(make([]byte, 0, len(stream)+12), prolly.String(stream), prolly.Uint(uint64(n)))
}

func idKey(stream string, id EventID) []byte {
	return prolly.EncodeKey(make([]byte, 0, len(stream)+24), prolly.String(stream), prolly.Bytes(id[:]))
}

func nameKey(name string) []byte {
	return prolly.EncodeKey(make([]byte, 0, len(name)+3), prolly.String(name))
}

func namePosKey(name string, p Position) []byte {
	return prolly.EncodeKey(make([]byte, 0, len(name)+12), prolly.String(name), prolly.Uint(uint64(p)))
}

func decodeLogKey(k []byte) (Position, error) {
	vs, err := prolly.DecodeKey(k)
	if err != nil {
		return 0, corruptf("log key: %v", err)
	}
	if len(vs) != 1 || vs[0].Kind() != prolly.KindUint || vs[0].IsDesc() || vs[0].AsUint() == 0 {
		return 0, corruptf("log key shape")
	}
	return Position(vs[0].AsUint()), nil
}

// decodeNameNumKey decodes (String, Uint) keys of by-stream, by-category
// and by-type.
func decodeNameNumKey(k []byte) (string, uint64, error) {
	vs, err := prolly.DecodeKey(k)
	if err != nil {
		return "", 0, corruptf("index key: %v", err)
	}
	if len(vs) != 2 || vs[0].Kind() != prolly.KindString || vs[1].Kind() != prolly.KindUint || vs[0].IsDesc() || vs[1].IsDesc() {
		return "", 0, corruptf("index key shape")
	}
	return vs[0].AsString(), vs[1].AsUint(), nil
}

// decodeStreamsKey decodes a key of events/streams: head reports the
// head record's key.
func decodeStreamsKey(k []byte) (stream string, head bool, err error) {
	vs, err := prolly.DecodeKey(k)
	if err != nil {
		return "", false, corruptf("streams key: %v", err)
	}
	if len(vs) == 1 && vs[0].IsNull() {
		return "", true, nil
	}
	if len(vs) != 1 || vs[0].Kind() != prolly.KindString || vs[0].IsDesc() {
		return "", false, corruptf("streams key shape")
	}
	return vs[0].AsString(), false, nil
}
