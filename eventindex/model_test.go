package eventindex

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"

	"github.com/verso-db/verso/internal/testseed"
)

var (
	stepsFlag = flag.Int("eventindex.steps", 600, "steps of each model-based test")
)

// testSeed returns the seed of the randomized tests (see internal/testseed).
func testSeed(t *testing.T) uint64 { return testseed.Seed(t) }

// model is a naive event store: every event in a slice, streams in a map.
type model struct {
	events  []Event // live, ascending position
	streams map[string]*mstream
	ids     map[sid]Position // the event-id index is per stream
	next    Position
	touched map[string]bool
}

type sid struct {
	stream string
	id     EventID
}

type mstream struct {
	next, first EventNumber
	soft, hard  bool
	md          StreamMetadata
}

func newModel() *model {
	return &model{streams: map[string]*mstream{}, ids: map[sid]Position{}, next: 1, touched: map[string]bool{}}
}

func (m *model) clone() *model {
	c := &model{events: slices.Clone(m.events), streams: map[string]*mstream{}, ids: map[sid]Position{}, next: m.next, touched: map[string]bool{}}
	for k, v := range m.streams {
		s := *v
		c.streams[k] = &s
	}
	for k, v := range m.ids {
		c.ids[k] = v
	}
	for k := range m.touched {
		c.touched[k] = true
	}
	return c
}

func (m *model) at(p Position) (Event, bool) {
	i, ok := slices.BinarySearchFunc(m.events, p, func(e Event, p Position) int { return int(e.Position) - int(p) })
	if !ok {
		return Event{}, false
	}
	return m.events[i], true
}

func (s *mstream) version() int64 {
	if s.soft || s.next == 0 {
		return -1
	}
	return int64(s.next) - 1
}

func (m *model) append(stream string, exp ExpectedVersion, evs []EventData, now time.Time) ([]Position, error) {
	s := m.streams[stream]
	if s == nil {
		s = &mstream{}
	}
	seen := map[EventID]bool{}
	for _, e := range evs {
		if !e.ID.IsZero() && seen[e.ID] {
			return nil, ErrDuplicateEventID
		}
		seen[e.ID] = true
	}
	if s.hard {
		return nil, ErrStreamDeleted
	}
	var found []*Event
	any := false
	for _, e := range evs {
		var f *Event
		if p, ok := m.ids[sid{stream, e.ID}]; ok && !e.ID.IsZero() {
			x, _ := m.at(p)
			f = &x
			any = true
		}
		found = append(found, f)
	}
	if any {
		var start EventNumber
		switch {
		case exp >= 0:
			start = EventNumber(exp) + 1
		case exp == NoStream:
			if s.soft {
				start = s.next
			}
		default:
			if found[0] == nil {
				return nil, ErrDuplicateEventID
			}
			start = found[0].Number
		}
		var ps []Position
		for i, f := range found {
			if f == nil || f.Stream != stream || f.Number != start+EventNumber(i) {
				return nil, ErrDuplicateEventID
			}
			ps = append(ps, f.Position)
		}
		return ps, nil
	}
	ok := false
	switch {
	case exp == Any:
		ok = true
	case exp == NoStream:
		ok = s.soft || s.next == 0
	case exp == StreamExists:
		ok = !s.soft && s.next > 0
	default:
		ok = s.next > 0 && int64(s.next)-1 == int64(exp)
	}
	if !ok {
		return nil, &WrongExpectedVersionError{Stream: stream, Expected: exp, Actual: s.version()}
	}
	var ps []Position
	for _, e := range evs {
		x := Event{Position: m.next, Stream: stream, Number: s.next, ID: e.ID, Type: e.Type, Data: e.Data, Metadata: e.Metadata, Created: now}
		m.events = append(m.events, x)
		m.ids[sid{stream, e.ID}] = m.next
		ps = append(ps, m.next)
		m.next++
		s.next++
	}
	if len(evs) > 0 {
		s.soft = false
		m.touched[stream] = true
	}
	m.streams[stream] = s
	return ps, nil
}

// commit applies retention to the touched streams.
func (m *model) commit(now time.Time) {
	for name := range m.touched {
		s := m.streams[name]
		cut := s.first
		if s.soft || s.hard {
			cut = s.next
		}
		if s.md.TruncateBefore > cut {
			cut = min(s.md.TruncateBefore, s.next)
		}
		if s.md.MaxCount > 0 && uint64(s.next) > s.md.MaxCount && s.next-EventNumber(s.md.MaxCount) > cut {
			cut = s.next - EventNumber(s.md.MaxCount)
		}
		if s.md.MaxAge > 0 {
			oldest := now.UnixMicro() - s.md.MaxAge.Microseconds()
			for cut < s.next {
				e := m.streamEvents(name)[cut-s.first]
				if e.Created.UnixMicro() >= oldest {
					break
				}
				cut++
			}
		}
		m.events = slices.DeleteFunc(m.events, func(e Event) bool {
			if e.Stream == name && e.Number < cut {
				delete(m.ids, sid{e.Stream, e.ID})
				return true
			}
			return false
		})
		s.first = max(s.first, cut)
	}
	m.touched = map[string]bool{}
}

func (m *model) streamEvents(name string) []Event {
	var out []Event
	for _, e := range m.events {
		if e.Stream == name {
			out = append(out, e)
		}
	}
	return out
}

func (m *model) visible(e *Event, now time.Time) bool {
	s := m.streams[e.Stream]
	return s.md.MaxAge == 0 || e.Created.UnixMicro() >= now.UnixMicro()-s.md.MaxAge.Microseconds()
}

var (
	modelStreams = []string{"a-1", "a-2", "a-3", "a-x-y", "ab-1", "b-1", "b-2", "b-3", "c", "cc-9", "d-1", "d-2"}
	modelTypes   = []string{"T1", "T2", "T3"}
)

func fmtEvents(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%d:%s/%d:%s:%s:%d ", e.Position, e.Stream, e.Number, e.Type, e.ID.String()[:8], e.Created.UnixMicro())
	}
	return b.String()
}

// modelRunner drives one Log (a branch) and its model.
type modelRunner struct {
	t     *testing.T
	rng   *rand.Rand
	clk   *testClock
	log   Log
	batch *Batch
	m     *model
	ids   []EventID
	names []string // streams to write; nil: modelStreams
}

func (r *modelRunner) randomEvents() []EventData {
	n := 1 + r.rng.IntN(3)
	var out []EventData
	for range n {
		e := EventData{Type: modelTypes[r.rng.IntN(len(modelTypes))], Data: []byte(`{"x":1}`)}
		if len(r.ids) > 0 && r.rng.IntN(6) == 0 {
			e.ID = r.ids[r.rng.IntN(len(r.ids))]
		} else {
			e.ID = EventID{byte(r.rng.Uint32()), byte(r.rng.Uint32()), byte(r.rng.Uint32()), 1, byte(r.rng.Uint32()), byte(r.rng.Uint32()), byte(r.rng.Uint32()), byte(r.rng.Uint32())}
			r.ids = append(r.ids, e.ID)
		}
		out = append(out, e)
	}
	return out
}

func (r *modelRunner) expected(stream string) ExpectedVersion {
	v := int64(-1)
	if s := r.m.streams[stream]; s != nil {
		v = s.version()
	}
	switch r.rng.IntN(6) {
	case 0:
		return Any
	case 1:
		return NoStream
	case 2:
		return StreamExists
	case 3:
		return ExpectedVersion(max(0, v+int64(r.rng.IntN(3))-1))
	}
	if v < 0 {
		return NoStream
	}
	return ExpectedVersion(v)
}

func sameErr(a, b error) bool {
	for _, e := range []error{ErrWrongExpectedVersion, ErrDuplicateEventID, ErrStreamDeleted, ErrStreamNotFound} {
		if errors.Is(a, e) != errors.Is(b, e) {
			return false
		}
	}
	return (a == nil) == (b == nil)
}

func (r *modelRunner) step(i int) {
	t := r.t
	names := r.names
	if names == nil {
		names = modelStreams
	}
	stream := names[r.rng.IntN(len(names))]
	switch op := r.rng.IntN(20); {
	case op < 10:
		evs := r.randomEvents()
		exp := r.expected(stream)
		res, err := r.batch.Append(ctx, stream, exp, evs)
		ps, merr := r.m.append(stream, exp, evs, r.batch.now)
		if !sameErr(err, merr) {
			t.Fatalf("step %d: append %s %s: got %v, model %v", i, stream, exp, err, merr)
		}
		if err == nil && fmt.Sprint(res.Positions) != fmt.Sprint(ps) {
			t.Fatalf("step %d: positions %v, model %v", i, res.Positions, ps)
		}
	case op < 12:
		md := StreamMetadata{}
		switch r.rng.IntN(4) {
		case 0:
			md.MaxCount = uint64(1 + r.rng.IntN(4))
		case 1:
			md.MaxAge = time.Duration(1+r.rng.IntN(5)) * time.Second
		case 2:
			if s := r.m.streams[stream]; s != nil {
				md.TruncateBefore = s.next - EventNumber(r.rng.IntN(int(s.next)+1)) + 1
			}
		}
		err := r.batch.SetStreamMetadata(ctx, stream, md)
		s := r.m.streams[stream]
		var merr error
		if s != nil && s.hard {
			merr = ErrStreamDeleted
		} else {
			if s == nil {
				s = &mstream{}
				r.m.streams[stream] = s
			}
			s.md = md
			r.m.touched[stream] = true
		}
		if !sameErr(err, merr) {
			t.Fatalf("step %d: metadata: got %v, model %v", i, err, merr)
		}
	case op < 13:
		hard := r.rng.IntN(10) == 0
		exp := r.expected(stream)
		err := r.batch.DeleteStream(ctx, stream, exp, hard)
		s := r.m.streams[stream]
		var merr error
		switch {
		case s == nil:
			merr = ErrStreamNotFound
		case s.hard:
			merr = ErrStreamDeleted
		default:
			ok := exp == Any || (exp == NoStream && (s.soft || s.next == 0)) || (exp == StreamExists && !s.soft && s.next > 0) ||
				(exp >= 0 && s.next > 0 && int64(s.next)-1 == int64(exp))
			if !ok {
				merr = ErrWrongExpectedVersion
			} else if hard {
				s.hard, s.soft, s.md = true, false, StreamMetadata{}
				r.m.touched[stream] = true
			} else {
				s.soft = true
				r.m.touched[stream] = true
			}
		}
		if !sameErr(err, merr) {
			t.Fatalf("step %d: delete %s %s hard=%v: got %v, model %v", i, stream, exp, hard, err, merr)
		}
	case op < 14:
		if err := r.batch.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		for name, s := range r.m.streams {
			if s.md.MaxAge > 0 && s.first < s.next {
				r.m.touched[name] = true
			}
		}
	case op < 16:
		r.clk.t = r.clk.t.Add(time.Duration(r.rng.IntN(1500)) * time.Millisecond)
	default:
		r.commit(i)
		r.compareReads(i)
	}
}

func (r *modelRunner) commit(i int) {
	l, err := r.batch.Log(ctx)
	if err != nil {
		r.t.Fatalf("step %d: %v", i, err)
	}
	r.m.commit(r.batch.now)
	r.log = l
	r.batch = l.Batch()
	r.compareAll(i)
}

func (r *modelRunner) compareAll(i int) {
	t := r.t
	if err := r.log.Check(ctx, false); err != nil {
		t.Fatalf("step %d: %v", i, err)
	}
	all, _, err := r.log.Read(ctx, Filter{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var want []Event
	for _, e := range r.m.events {
		if r.m.visible(&e, r.clk.t) {
			want = append(want, e)
		}
	}
	if g, w := fmtEvents(all), fmtEvents(want); g != w {
		t.Fatalf("step %d: $all\n got %s\nwant %s", i, g, w)
	}
	if r.log.Count() != uint64(len(r.m.events)) || r.log.NextPosition() != r.m.next {
		t.Fatalf("step %d: count %d next %d, model %d %d", i, r.log.Count(), r.log.NextPosition(), len(r.m.events), r.m.next)
	}
	for name, s := range r.m.streams {
		info, err := r.log.Stream(ctx, name)
		if err != nil {
			t.Fatalf("step %d: stream %s: %v", i, name, err)
		}
		if info.Version != s.version() || info.First != s.first || info.Next != s.next || info.HardDeleted != s.hard || info.SoftDeleted != s.soft {
			t.Fatalf("step %d: stream %s: %+v, model %+v", i, name, info, *s)
		}
	}
}

func (r *modelRunner) compareReads(i int) {
	t := r.t
	now := r.clk.t
	for k := 0; k < 4; k++ {
		var f Filter
		switch r.rng.IntN(6) {
		case 0:
			f.Category = Category(modelStreams[r.rng.IntN(len(modelStreams))])
		case 1:
			f.Type = modelTypes[r.rng.IntN(len(modelTypes))]
		case 2:
			f.StreamPrefix = []string{"a", "a-", "ab", "b-1", "c", "x"}[r.rng.IntN(6)]
		case 3:
			f.Stream = modelStreams[r.rng.IntN(len(modelStreams))]
		case 4:
			f.Category = Category(modelStreams[r.rng.IntN(len(modelStreams))])
			f.Type = modelTypes[r.rng.IntN(len(modelTypes))]
		}
		if r.rng.IntN(3) == 0 {
			f.Type = modelTypes[r.rng.IntN(len(modelTypes))]
		}
		if r.rng.IntN(5) == 0 {
			f.StreamPrefix = []string{"a", "a-", "ab", "b-1", "c", "x"}[r.rng.IntN(6)]
		}
		if r.rng.IntN(8) == 0 {
			f.Stream = modelStreams[r.rng.IntN(len(modelStreams))]
		}
		if r.rng.IntN(8) == 0 {
			f.Category = Category(modelStreams[r.rng.IntN(len(modelStreams))])
		}
		if r.rng.IntN(3) == 0 && r.m.next > 1 {
			f.From = Position(r.rng.IntN(int(r.m.next)))
			f.To = f.From + Position(r.rng.IntN(20))
		}
		var want []Event
		for _, e := range r.m.events {
			if f.Match(&e) && r.m.visible(&e, now) {
				want = append(want, e)
			}
		}
		// Page through it.
		got := readPaged(t, r.log, f, 1+r.rng.IntN(5))
		if a, b := fmtEvents(got), fmtEvents(want); a != b {
			t.Fatalf("step %d: read %+v\n got %s\nwant %s", i, f, a, b)
		}
	}
	stream := modelStreams[r.rng.IntN(len(modelStreams))]
	s := r.m.streams[stream]
	back := r.rng.IntN(2) == 0
	from := EventNumber(r.rng.IntN(8))
	got, err := r.log.ReadStream(ctx, stream, from, 3, back)
	if s == nil {
		if !errors.Is(err, ErrStreamNotFound) {
			t.Fatalf("step %d: read missing stream: %v", i, err)
		}
		return
	}
	var want []Event
	evs := r.m.streamEvents(stream)
	if back {
		slices.Reverse(evs)
	}
	for _, e := range evs {
		if len(want) == 3 {
			break
		}
		if (!back && e.Number >= from) || (back && e.Number <= from) {
			if r.m.visible(&e, now) {
				want = append(want, e)
			} else if back {
				break
			}
		}
	}
	if a, b := fmtEvents(got), fmtEvents(want); err != nil || a != b {
		t.Fatalf("step %d: read stream %s from %d back=%v: %v\n got %s\nwant %s", i, stream, from, back, err, a, b)
	}
}

func TestModel(t *testing.T) {
	seed := testSeed(t)
	for run := uint64(0); run < 4; run++ {
		rng := rand.New(rand.NewPCG(seed, run))
		l, clk := newTestLog(t)
		r := &modelRunner{t: t, rng: rng, clk: clk, log: l, batch: l.Batch(), m: newModel()}
		for i := 0; i < *stepsFlag; i++ {
			r.step(i)
		}
		r.commit(-1)
		t.Logf("run %d: %d events appended, %d stored, %d streams", run, r.m.next-1, len(r.m.events), len(r.m.streams))
	}
}

// mergeModels is the naive merge: a stream changed on both sides (or an
// event id both appended) conflicts; otherwise theirs' changes apply and
// their new events go after ours' in theirs' order.
func mergeModels(base, ours, theirs *model) (*model, error) {
	out := ours.clone()
	var adds []Event
	for name, ts := range theirs.streams {
		bs := base.streams[name]
		if bs != nil && *bs == *ts {
			continue
		}
		os := ours.streams[name]
		if (bs == nil) != (os == nil) || (bs != nil && *bs != *os) {
			return nil, ErrMergeConflict
		}
		var bnext EventNumber
		if bs != nil {
			bnext = bs.next
		}
		out.events = slices.DeleteFunc(out.events, func(e Event) bool {
			if e.Stream == name && e.Number < ts.first {
				delete(out.ids, sid{e.Stream, e.ID})
				return true
			}
			return false
		})
		for _, e := range theirs.events {
			if e.Stream == name && e.Number >= bnext {
				adds = append(adds, e)
			}
		}
		c := *ts
		out.streams[name] = &c
	}
	slices.SortFunc(adds, func(a, b Event) int { return int(a.Position) - int(b.Position) })
	for _, e := range adds {
		if _, ok := out.ids[sid{e.Stream, e.ID}]; ok {
			return nil, ErrMergeConflict
		}
		e.Position = out.next
		out.next++
		out.events = append(out.events, e)
		out.ids[sid{e.Stream, e.ID}] = e.Position
	}
	return out, nil
}

func TestModelMerge(t *testing.T) {
	seed := testSeed(t)
	merges, conflicts := 0, 0
	for run := uint64(0); run < 3; run++ {
		rng := rand.New(rand.NewPCG(seed, 100+run))
		l, clk := newTestLog(t)
		r := &modelRunner{t: t, rng: rng, clk: clk, log: l, batch: l.Batch(), m: newModel()}
		for i := 0; i < 100; i++ {
			r.step(i)
		}
		r.commit(-1)
		for round := 0; round < *stepsFlag/40; round++ {
			baseLog, baseModel := r.log, r.m.clone()
			th := &modelRunner{t: t, rng: rng, clk: clk, log: baseLog, batch: baseLog.Batch(), m: baseModel.clone(), ids: r.ids}
			r.names, th.names = nil, nil
			if rng.IntN(3) != 0 {
				r.names, th.names = modelStreams[:6], modelStreams[6:]
			}
			for i := 0; i < 20; i++ {
				r.step(i)
				th.step(i)
			}
			r.commit(-2)
			th.commit(-3)
			merged, err := Merge(ctx, baseLog, r.log, th.log)
			mm, merr := mergeModels(baseModel, r.m, th.m)
			if errors.Is(err, ErrMergeConflict) != errors.Is(merr, ErrMergeConflict) || (err == nil) != (merr == nil) {
				t.Fatalf("run %d round %d: merge %v, model %v", run, round, err, merr)
			}
			if err != nil {
				conflicts++
				continue
			}
			merges++
			r.log, r.m, r.batch = merged, mm, merged.Batch()
			r.compareAll(-4)
			r.compareReads(-4)
		}
	}
	t.Logf("%d merges, %d conflicts", merges, conflicts)
}

// TestModelFileStore runs the model over a file store's nodes.
func TestModelFileStore(t *testing.T) {
	seed := testSeed(t)
	fs, err := chunks.OpenFileStore(t.TempDir(), chunks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	clk := &testClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := NewLog(prolly.NewNodeStore(fs)).WithClock(clk.now)
	r := &modelRunner{t: t, rng: rand.New(rand.NewPCG(seed, 7)), clk: clk, log: l, batch: l.Batch(), m: newModel()}
	for i := 0; i < *stepsFlag/2; i++ {
		r.step(i)
	}
	r.commit(-1)
	if err := r.log.Check(ctx, true); err != nil {
		t.Fatal(err)
	}
}
