package systables

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso/eventindex"
)

// The table functions that read the event log in pages, with
// dolt_events' columns:
//
//	dolt_read_all(filter [, from_position [, max_count]])
//	dolt_read_stream(stream [, from_event_number [, max_count [, 'backwards']]])
//
// max_count defaults to one page (2000 events); a larger count is read a
// page at a time. A client pages on by passing the last position (or
// event number) it got, plus one.
//
// Filters of dolt_read_all, KurrentDB's names and their conjunctions:
//
//	$all                      every event
//	$idx-ce-<category>        the category index ($ce-<category> too)
//	$idx-et-<event type>      the event-type index
//	<stream id>               one stream
//	$idx-ce-Order&$idx-et-OrderCreated
//	                          a conjunction: names joined by '&' (each
//	                          begins with '$', so the text is split at
//	                          every "&$"); the category and type indexes
//	                          are joined on position before any event is
//	                          read
//	{"category": "Order", "event_type": "OrderCreated",
//	 "stream": "Order-1", "stream_prefix": "Order-1", "to_position": 500}
//	                          the same as a JSON object: any of these keys,
//	                          all of which must hold (to_position is
//	                          exclusive); for names holding "&$"

// Names of the table functions that read the event log.
const (
	ReadAllName    = "dolt_read_all"
	ReadStreamName = "dolt_read_stream"
)

// ReadUsage returns how the read function named name is called.
func ReadUsage(name string) string {
	if name == ReadAllName {
		return "dolt_read_all(filter [, from_position [, max_count]])"
	}
	return "dolt_read_stream(stream [, from_event_number [, max_count [, 'backwards']]])"
}

// ReadEvents returns the rows of the read function named name
// (ReadAllName or ReadStreamName) called with the argument values vals
// (one to three, or four for dolt_read_stream), from the log of v's
// session transaction, with EventSchema's columns.
func ReadEvents(ctx *sql.Context, v *View, name string, vals []any) (sql.RowIter, error) {
	it, err := readEvents(ctx, v, name, vals)
	if err != nil {
		return nil, err
	}
	return it, nil
}

// EventPages are the events of a read function's call (ReadEventPages),
// a page at a time, as the log holds them: for a caller that formats
// events itself, without the rows of EventSchema.
type EventPages struct{ it *eventIter }

// ReadEventPages returns the events ReadEvents returns the rows of, in
// pages.
func ReadEventPages(ctx *sql.Context, v *View, name string, vals []any) (*EventPages, error) {
	it, err := readEvents(ctx, v, name, vals)
	if err != nil {
		return nil, err
	}
	return &EventPages{it: it}, nil
}

// Next returns the next events, in order, or io.EOF after the last. The
// slice is the caller's until the next call.
func (p *EventPages) Next(ctx *sql.Context) ([]eventindex.Event, error) {
	return p.it.page(ctx)
}

func readEvents(ctx *sql.Context, v *View, name string, vals []any) (*eventIter, error) {
	f := eventRead{name: name}
	filter, ok := vals[0].(string)
	if !ok {
		what := "filter"
		if f.name == ReadStreamName {
			what = "stream"
		}
		return nil, fmt.Errorf("verso: %s: the %s must be a string: %s", f.name, what, ReadUsage(f.name))
	}
	from, limit := int64(-1), int64(eventPage)
	var err error
	if len(vals) > 1 && vals[1] != nil {
		if from, err = f.count(ctx, vals[1], "from"); err != nil {
			return nil, err
		}
	}
	if len(vals) > 2 && vals[2] != nil {
		if limit, err = f.count(ctx, vals[2], "max_count"); err != nil {
			return nil, err
		}
	}
	log, err := eventSource{v: v}.log(ctx)
	if err != nil {
		return nil, err
	}
	if f.name == ReadAllName {
		flt, err := parseReadFilter(filter)
		if err != nil {
			return nil, err
		}
		if from >= 0 {
			flt.From = max(flt.From, eventindex.Position(from))
		}
		if flt.To != 0 && flt.From >= flt.To {
			return newEventIter(log, nil, 0), nil
		}
		return newEventIter(log, []eventQuery{{f: flt}}, limit), nil
	}
	backwards := false
	if len(vals) > 3 && vals[3] != nil {
		dir, _ := vals[3].(string)
		switch strings.ToLower(strings.TrimSpace(dir)) {
		case "backwards":
			backwards = true
		case "forwards":
		default:
			return nil, fmt.Errorf("verso: %s: direction %v: use 'forwards' or 'backwards'", f.name, vals[3])
		}
	}
	if _, err := log.Stream(ctx, filter); err != nil {
		return nil, EventsError(err)
	}
	q := eventQuery{f: eventindex.Filter{Stream: filter}}
	if from >= 0 {
		if backwards {
			q.numTo = uint64(from) + 1
		} else {
			q.numFrom = uint64(from)
		}
	}
	it := newEventIter(log, []eventQuery{q}, limit)
	it.backwards = backwards
	return it, nil
}

// eventRead is a call of a read function.
type eventRead struct{ name string }

// count reads a non-negative integer argument.
func (f eventRead) count(ctx *sql.Context, v any, what string) (int64, error) {
	n, _, err := types.Int64.Convert(ctx, v)
	if err != nil {
		return 0, fmt.Errorf("verso: %s: %s %v is not a number: %s", f.name, what, v, ReadUsage(f.name))
	}
	if n.(int64) < 0 {
		if what == "from" && f.name == ReadStreamName {
			return 0, fmt.Errorf("verso: %s: from_event_number %d is negative: give 0 or more, or NULL for the start (the end when reading backwards)", f.name, n)
		}
		return 0, fmt.Errorf("verso: %s: %s %d is negative: give 0 or more: %s", f.name, what, n, ReadUsage(f.name))
	}
	return n.(int64), nil
}

const filterHelp = `use '$all', '$idx-ce-<category>', '$idx-et-<event type>', a stream id, several of these joined by '&' ('$idx-ce-Order&$idx-et-OrderCreated'), or a JSON object with any of "category", "event_type", "stream", "stream_prefix" and "to_position"`

// parseReadFilter reads a filter of dolt_read_all.
func parseReadFilter(s string) (eventindex.Filter, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		return parseJSONFilter(s)
	}
	var f eventindex.Filter
	if s == "" {
		return f, fmt.Errorf("verso: dolt_read_all: empty filter: %s", filterHelp)
	}
	for i, term := range strings.Split(s, "&$") {
		if i > 0 {
			term = "$" + term
		}
		g, err := eventindex.ParseFilter(term)
		if err != nil {
			return f, fmt.Errorf("verso: dolt_read_all: unknown filter %q: %s", term, filterHelp)
		}
		if err := andFilter(&f, g); err != nil {
			return f, err
		}
	}
	return f, nil
}

// andFilter adds g's conditions to f; two different values for one name
// cannot both hold.
func andFilter(f *eventindex.Filter, g eventindex.Filter) error {
	for _, c := range []struct {
		what string
		dst  *string
		src  string
	}{{"categories", &f.Category, g.Category}, {"event types", &f.Type, g.Type}, {"streams", &f.Stream, g.Stream}} {
		if c.src == "" {
			continue
		}
		if *c.dst != "" && *c.dst != c.src {
			return fmt.Errorf("verso: dolt_read_all: two %s (%q and %q) cannot both hold: give one", c.what, *c.dst, c.src)
		}
		*c.dst = c.src
	}
	return nil
}

// parseJSONFilter reads a filter given as a JSON object.
func parseJSONFilter(s string) (eventindex.Filter, error) {
	var raw struct {
		Category     string `json:"category"`
		EventType    string `json:"event_type"`
		Stream       string `json:"stream"`
		StreamPrefix string `json:"stream_prefix"`
		ToPosition   *int64 `json:"to_position"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return eventindex.Filter{}, fmt.Errorf("verso: dolt_read_all: bad JSON filter (%v): %s", err, filterHelp)
	}
	f := eventindex.Filter{Category: raw.Category, Type: raw.EventType, Stream: raw.Stream, StreamPrefix: raw.StreamPrefix}
	if raw.ToPosition != nil {
		if *raw.ToPosition < 0 {
			return f, fmt.Errorf("verso: dolt_read_all: to_position %d is negative: give 0 or more", *raw.ToPosition)
		}
		f.To = eventindex.Position(*raw.ToPosition)
		if f.To == 0 {
			f.To = 1 // position 0 holds no event: an empty range
			f.From = 1
		}
	}
	return f, nil
}
