package eventindex

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Position is an event's place in a branch's log: dense and ascending
// within the branch's history, from 1. Positions removed by retention are
// never given out again.
type Position uint64

// EventNumber is an event's place in its stream, from 0.
type EventNumber uint64

// EventID is the UUID that makes an append idempotent.
type EventID [16]byte

// NewEventID returns a random (version 4) UUID.
func NewEventID() EventID {
	var id EventID
	if _, err := rand.Read(id[:]); err != nil {
		panic("eventindex: crypto/rand failed: " + err.Error())
	}
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}

// IsZero reports whether id is the zero UUID (which asks Append to
// generate one).
func (id EventID) IsZero() bool { return id == EventID{} }

// String returns the canonical 36-character form.
func (id EventID) String() string {
	return string(id.AppendText(make([]byte, 0, 36)))
}

// AppendText appends the canonical 36-character form to b.
func (id EventID) AppendText(b []byte) []byte {
	n := len(b)
	b = append(b, make([]byte, 36)...)
	t := b[n:]
	hex.Encode(t[0:8], id[0:4])
	t[8] = '-'
	hex.Encode(t[9:13], id[4:6])
	t[13] = '-'
	hex.Encode(t[14:18], id[6:8])
	t[18] = '-'
	hex.Encode(t[19:23], id[8:10])
	t[23] = '-'
	hex.Encode(t[24:], id[10:])
	return b
}

// ParseEventID parses a UUID in its 36-character form (or 32 hex digits).
func ParseEventID(s string) (EventID, error) {
	var id EventID
	h := strings.ReplaceAll(s, "-", "")
	if len(h) != 32 || (len(s) != 32 && len(s) != 36) {
		return id, fmt.Errorf("%w: event id %q is not a UUID", ErrBadName, s)
	}
	if _, err := hex.Decode(id[:], []byte(h)); err != nil {
		return id, fmt.Errorf("%w: event id %q is not a UUID", ErrBadName, s)
	}
	return id, nil
}

// EventData is an event as a client gives it to Append.
type EventData struct {
	ID       EventID // zero: Append generates one
	Type     string
	Data     []byte // JSON (empty allowed)
	Metadata []byte // JSON (empty allowed)
}

// Event is a stored event.
type Event struct {
	Position Position
	Stream   string
	Number   EventNumber
	ID       EventID
	Type     string
	Data     []byte
	Metadata []byte
	Created  time.Time // UTC, microseconds
}

// Category returns the event's category.
func (e *Event) Category() string { return Category(e.Stream) }

// Category returns the category of a stream: its id before the first '-',
// or the whole id if it has none.
func Category(stream string) string {
	if i := strings.IndexByte(stream, '-'); i >= 0 {
		return stream[:i]
	}
	return stream
}

// MaxNameLen is the longest stream id or event type, in bytes.
const MaxNameLen = 512

func checkName(what, s string, allowReserved bool) error {
	if s == "" || len(s) > MaxNameLen || !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s %q", ErrBadName, what, s)
	}
	if !allowReserved && s[0] == '$' {
		return fmt.Errorf("%w: %s %q begins with '$'", ErrReserved, what, s)
	}
	return nil
}

func checkJSON(what string, b []byte) error {
	if len(b) > 0 && !validJSON(b) {
		return fmt.Errorf("%w: %s", ErrBadJSON, what)
	}
	return nil
}

// ExpectedVersion is what an append expects of its stream: Any,
// NoStream, StreamExists, or Exact(n), the number of the stream's last
// event. The negative values follow KurrentDB's.
type ExpectedVersion int64

const (
	// Any accepts the stream in any state.
	Any ExpectedVersion = -2
	// NoStream accepts a stream with no event: never written, or soft
	// deleted with nothing appended since.
	NoStream ExpectedVersion = -1
	// StreamExists accepts a stream with at least one live event.
	StreamExists ExpectedVersion = -4
)

// Exact expects the stream's last event to have number n.
func Exact(n EventNumber) ExpectedVersion { return ExpectedVersion(n) }

func (v ExpectedVersion) String() string {
	switch {
	case v == Any:
		return "any"
	case v == NoStream:
		return "no stream"
	case v == StreamExists:
		return "stream exists"
	case v >= 0:
		return strconv.FormatInt(int64(v), 10)
	}
	return fmt.Sprintf("invalid(%d)", int64(v))
}

func microTime(us int64) time.Time { return time.UnixMicro(us).UTC() }

func microDuration(us int64) time.Duration { return time.Duration(us) * time.Microsecond }
