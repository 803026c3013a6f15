package sqlserver

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

// eventTableFunctions are the table functions of the event log.
var eventTableFunctions = []sql.TableFunction{&eventReadFunc{name: readAllName}, &eventReadFunc{name: readStreamName}}

const (
	readAllName    = "dolt_read_all"
	readStreamName = "dolt_read_stream"
)

// eventReadFunc is dolt_read_all or dolt_read_stream, called with args.
type eventReadFunc struct {
	name string
	db   *Database
	args []sql.Expression
}

var (
	_ sql.TableFunction      = (*eventReadFunc)(nil)
	_ sql.ExecSourceRel      = (*eventReadFunc)(nil)
	_ sql.CollationCoercible = (*eventReadFunc)(nil)
)

func (f *eventReadFunc) usage() string {
	if f.name == readAllName {
		return "dolt_read_all(filter [, from_position [, max_count]])"
	}
	return "dolt_read_stream(stream [, from_event_number [, max_count [, 'backwards']]])"
}

// NewInstance implements sql.TableFunction.
func (f *eventReadFunc) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	maxArgs := 3
	if f.name == readStreamName {
		maxArgs = 4
	}
	if len(args) < 1 || len(args) > maxArgs {
		return nil, sql.ErrInvalidArgumentNumber.New(f.name, fmt.Sprintf("1 to %d", maxArgs), len(args))
	}
	vdb, ok := db.(*Database)
	if !ok || vdb == nil || vdb.temp {
		return nil, fmt.Errorf("verso: %s reads the event log of the current database: USE one first", f.name)
	}
	return &eventReadFunc{name: f.name, db: vdb, args: args}, nil
}

func (f *eventReadFunc) Name() string { return f.name }

func (f *eventReadFunc) String() string {
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", f.name, strings.Join(parts, ", "))
}

func (f *eventReadFunc) Description() string { return "reads the event log in pages" }

func (f *eventReadFunc) Resolved() bool {
	for _, a := range f.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (f *eventReadFunc) IsReadOnly() bool               { return true }
func (f *eventReadFunc) Schema(*sql.Context) sql.Schema { return eventSchema(f.name) }
func (f *eventReadFunc) Children() []sql.Node           { return nil }
func (f *eventReadFunc) Expressions() []sql.Expression  { return f.args }
func (f *eventReadFunc) Database() sql.Database         { return f.db }
func (f *eventReadFunc) Collation() sql.CollationID     { return sql.Collation_Default }
func (f *eventReadFunc) WithDatabase(db sql.Database) (sql.Node, error) {
	vdb, ok := db.(*Database)
	if !ok {
		return nil, fmt.Errorf("verso: %s needs a verso database, not %T", f.name, db)
	}
	nf := *f
	nf.db = vdb
	return &nf, nil
}

func (f *eventReadFunc) WithChildren(_ *sql.Context, children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 0)
	}
	return f, nil
}

func (f *eventReadFunc) WithExpressions(_ *sql.Context, exprs ...sql.Expression) (sql.Node, error) {
	if len(exprs) != len(f.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(exprs), len(f.args))
	}
	nf := *f
	nf.args = exprs
	return &nf, nil
}

// CollationCoercibility implements sql.CollationCoercible.
func (f *eventReadFunc) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 7
}

// RowIter implements sql.ExecSourceRel.
func (f *eventReadFunc) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	vals := make([]any, len(f.args))
	for i, a := range f.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	name, ok := vals[0].(string)
	if !ok {
		what := "filter"
		if f.name == readStreamName {
			what = "stream"
		}
		return nil, fmt.Errorf("verso: %s: the %s must be a string: %s", f.name, what, f.usage())
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
	log, err := logSource{db: f.db}.log(ctx)
	if err != nil {
		return nil, err
	}
	if f.name == readAllName {
		flt, err := parseReadFilter(name)
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
	if _, err := log.Stream(ctx, name); err != nil {
		return nil, eventsError(err)
	}
	q := eventQuery{f: eventindex.Filter{Stream: name}}
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

// count reads a non-negative integer argument.
func (f *eventReadFunc) count(ctx *sql.Context, v any, what string) (int64, error) {
	n, _, err := types.Int64.Convert(ctx, v)
	if err != nil {
		return 0, fmt.Errorf("verso: %s: %s %v is not a number: %s", f.name, what, v, f.usage())
	}
	if n.(int64) < 0 {
		if what == "from" && f.name == readStreamName {
			return 0, fmt.Errorf("verso: %s: from_event_number %d is negative: give 0 or more, or NULL for the start (the end when reading backwards)", f.name, n)
		}
		return 0, fmt.Errorf("verso: %s: %s %d is negative: give 0 or more: %s", f.name, what, n, f.usage())
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
