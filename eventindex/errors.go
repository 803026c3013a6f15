package eventindex

import (
	"errors"
	"fmt"

	"github.com/verso-db/verso/chunks"
)

var (
	// ErrWrongExpectedVersion is returned when an append's or a delete's
	// expected version does not match the stream. The error is a
	// *WrongExpectedVersionError naming the stream and both versions.
	ErrWrongExpectedVersion = errors.New("eventindex: wrong expected version")
	// ErrDuplicateEventID is returned when an event id is already in the
	// stream somewhere other than the place the append expects it, or
	// twice in one append.
	ErrDuplicateEventID = errors.New("eventindex: duplicate event id")
	// ErrStreamDeleted is returned for a write to a stream that was hard
	// deleted: it can never be written again.
	ErrStreamDeleted = errors.New("eventindex: stream is deleted")
	// ErrStreamNotFound is returned by reads and deletes of a stream that
	// holds no event and no metadata.
	ErrStreamNotFound = errors.New("eventindex: stream not found")
	// ErrReserved is returned for a stream or event type beginning with
	// '$': those names belong to the system.
	ErrReserved = errors.New("eventindex: reserved name")
	// ErrBadName is returned for an empty or oversized stream or type name,
	// or one that is not valid UTF-8.
	ErrBadName = errors.New("eventindex: bad name")
	// ErrBadJSON is returned for event data or metadata that is not JSON.
	ErrBadJSON = errors.New("eventindex: data is not valid JSON")
	// ErrTooLarge is returned for an event whose record does not fit a
	// prolly value (prolly.MaxValueSize).
	ErrTooLarge = errors.New("eventindex: event too large")
	// ErrBadFilter is returned for a read filter or an $idx- name that
	// cannot be parsed.
	ErrBadFilter = errors.New("eventindex: bad filter")
	// ErrMergeConflict is returned by Merge when both sides changed one
	// stream (appends, retention or metadata) since the merge base. It
	// wraps commitgraph.ErrMergeConflict
	// when it comes through MergeRoots.
	ErrMergeConflict = errors.New("eventindex: merge conflict")
	// ErrCheck is returned by Log.Check for a log whose indexes do not
	// match it.
	ErrCheck = errors.New("eventindex: check failed")
	// ErrCorrupt marks stored event-log bytes that cannot be decoded. It
	// wraps chunks.ErrCorrupt, so chunks.IsCorrupt reports it too.
	ErrCorrupt = fmt.Errorf("eventindex: malformed record: %w", chunks.ErrCorrupt)
	// ErrClosed is returned by a Store or a Subscription after Close.
	ErrClosed = errors.New("eventindex: closed")
	// ErrBadMetadata is returned for stream metadata out of range (a
	// negative or sub-microsecond max age).
	ErrBadMetadata = errors.New("eventindex: bad stream metadata")
)

// WrongExpectedVersionError says which stream refused a write, what the
// caller expected and what the stream's version was. Actual is the last
// event number, -1 for a stream with no event (never written, or soft
// deleted with nothing after).
type WrongExpectedVersionError struct {
	Stream   string
	Expected ExpectedVersion
	Actual   int64
}

func (e *WrongExpectedVersionError) Error() string {
	return fmt.Sprintf("eventindex: wrong expected version for stream %q: expected %s, actual %d", e.Stream, e.Expected, e.Actual)
}

// Unwrap makes errors.Is(err, ErrWrongExpectedVersion) true.
func (e *WrongExpectedVersionError) Unwrap() error { return ErrWrongExpectedVersion }

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func checkf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCheck}, args...)...)
}
