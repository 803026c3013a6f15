package sqlserver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/internal/testseed"
)

// TestEventsRandomFilters compares random WHERE clauses on dolt_events
// (conjunctions and disjunctions of =, IN, comparisons and BETWEEN on every
// indexed column, so lookups on each index with filters left above them)
// with the same conditions checked in Go on every event of the log as
// eventindex reads it.
func TestEventsRandomFilters(t *testing.T) {
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 8))
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	streams := []string{"Order-1", "Order-2", "Order-10", "User-1", "User-2", "Pay", "Pay-x"}
	typesList := []string{"A", "B", "C", "D"}
	for i := 0; i < 60; i++ {
		var evs []string
		for j := 0; j < 1+rng.IntN(8); j++ {
			evs = append(evs, fmt.Sprintf(`{"event_type": "%s"}`, typesList[rng.IntN(len(typesList))]))
		}
		env.exec(ctx, fmt.Sprintf(`CALL dolt_append_events('%s', 'any', '[%s]')`, streams[rng.IntN(len(streams))], strings.Join(evs, ",")))
		if i == 30 {
			env.exec(ctx, `CALL dolt_stream_metadata('Order-1', '{"$maxCount": 3}')`)
			env.exec(ctx, `CALL dolt_delete_stream('User-2')`)
		}
	}
	l := workingLog(t, env, "db")
	all, _, err := l.Read(ctx, eventindex.Filter{}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	maxPos := int(l.NextPosition())

	type cond struct {
		sql   string
		match func(e *eventindex.Event) bool
	}
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	names := func(col string, list []string, get func(e *eventindex.Event) string) cond {
		if rng.IntN(3) == 0 {
			a, b := pick(list), pick(list)
			return cond{fmt.Sprintf("%s IN ('%s', '%s')", col, a, b), func(e *eventindex.Event) bool { return get(e) == a || get(e) == b }}
		}
		v := pick(list)
		return cond{fmt.Sprintf("%s = '%s'", col, v), func(e *eventindex.Event) bool { return get(e) == v }}
	}
	number := func(col string, limit int, get func(e *eventindex.Event) int) cond {
		n := rng.IntN(limit+2) - 1
		switch rng.IntN(6) {
		case 0:
			return cond{fmt.Sprintf("%s = %d", col, n), func(e *eventindex.Event) bool { return get(e) == n }}
		case 1:
			return cond{fmt.Sprintf("%s > %d", col, n), func(e *eventindex.Event) bool { return get(e) > n }}
		case 2:
			return cond{fmt.Sprintf("%s <= %d", col, n), func(e *eventindex.Event) bool { return get(e) <= n }}
		case 3:
			return cond{fmt.Sprintf("%d < %s", n, col), func(e *eventindex.Event) bool { return n < get(e) }}
		case 4:
			m := n + rng.IntN(20)
			return cond{fmt.Sprintf("%s BETWEEN %d AND %d", col, n, m), func(e *eventindex.Event) bool { return get(e) >= n && get(e) <= m }}
		default:
			return cond{fmt.Sprintf("%s >= %d.5", col, n), func(e *eventindex.Event) bool { return float64(get(e)) >= float64(n)+0.5 }}
		}
	}
	cats := []string{"Order", "User", "Pay", "Nope"}
	one := func() cond {
		switch rng.IntN(5) {
		case 0:
			return names("stream_id", append(streams, "Nope-1"), func(e *eventindex.Event) string { return e.Stream })
		case 1:
			return names("category", cats, func(e *eventindex.Event) string { return e.Category() })
		case 2:
			return names("event_type", append(typesList, "Z"), func(e *eventindex.Event) string { return e.Type })
		case 3:
			return number("position", maxPos, func(e *eventindex.Event) int { return int(e.Position) })
		default:
			return number("event_number", 40, func(e *eventindex.Event) int { return int(e.Number) })
		}
	}
	for i := 0; i < 400; i++ {
		var conds []cond
		for j := 0; j < 1+rng.IntN(4); j++ {
			c := one()
			if rng.IntN(8) == 0 {
				d := one()
				c1 := c
				c = cond{"(" + c1.sql + " OR " + d.sql + ")", func(e *eventindex.Event) bool { return c1.match(e) || d.match(e) }}
			}
			conds = append(conds, c)
		}
		var where []string
		var want []string
		for _, c := range conds {
			where = append(where, c.sql)
		}
		for k := range all {
			ok := true
			for _, c := range conds {
				ok = ok && c.match(&all[k])
			}
			if ok {
				want = append(want, fmt.Sprint(uint64(all[k].Position)))
			}
		}
		q := "SELECT position FROM dolt_events WHERE " + strings.Join(where, " AND ")
		var got []string
		for _, r := range env.exec(ctx, q) {
			got = append(got, fmt.Sprint(r[0]))
		}
		slices.SortFunc(got, func(a, b string) int { return len(a) - len(b) + strings.Compare(a, b)*boolInt(len(a) == len(b)) })
		if !slices.Equal(got, want) {
			plan := formatRows(env.exec(ctx, "EXPLAIN PLAN "+q))
			t.Fatalf("%s:\n got %v\nwant %v\nplan %s", q, got, want, plan)
		}
	}
}

// TestEventsRandomReadAll pages through dolt_read_all with random filters
// (KurrentDB names, '&' conjunctions, JSON objects), start positions and
// page sizes, and compares each page with the log filtered in Go.
func TestEventsRandomReadAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 9))
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	streams := []string{"Order-1", "Order-2", "User-1", "Pay"}
	for i := 0; i < 40; i++ {
		var evs []string
		for j := 0; j < 1+rng.IntN(6); j++ {
			evs = append(evs, fmt.Sprintf(`{"event_type": "T%d"}`, rng.IntN(3)))
		}
		env.exec(ctx, fmt.Sprintf(`CALL dolt_append_events('%s', 'any', '[%s]')`, streams[rng.IntN(len(streams))], strings.Join(evs, ",")))
	}
	all := env.exec(ctx, "SELECT position, stream_id, event_type FROM dolt_read_all('$all', 0, 100000)")
	l := workingLog(t, env, "db")
	events, _, err := l.Read(ctx, eventindex.Filter{}, 1<<20)
	if err != nil || len(events) != len(all) {
		t.Fatalf("%d events through SQL, %d in the log (%v)", len(all), len(events), err)
	}
	for i := 0; i < 200; i++ {
		var f eventindex.Filter
		var terms []string
		if rng.IntN(2) == 0 {
			f.Category = []string{"Order", "User", "Pay", "None"}[rng.IntN(4)]
			terms = append(terms, "$idx-ce-"+f.Category)
		}
		if rng.IntN(2) == 0 {
			f.Type = fmt.Sprintf("T%d", rng.IntN(4))
			terms = append(terms, "$idx-et-"+f.Type)
		}
		if rng.IntN(4) == 0 {
			f.Stream = streams[rng.IntN(len(streams))]
			terms = append([]string{f.Stream}, terms...)
		}
		filter := strings.Join(terms, "&")
		if filter == "" {
			filter = "$all"
		}
		if rng.IntN(3) == 0 {
			f.StreamPrefix = []string{"Order-", "O", "Pay", "U"}[rng.IntN(4)]
			f.To = eventindex.Position(rng.IntN(len(events) + 20))
			filter = fmt.Sprintf(`{"category": %q, "event_type": %q, "stream": %q, "stream_prefix": %q, "to_position": %d}`, f.Category, f.Type, f.Stream, f.StreamPrefix, f.To)
			if f.To == 0 {
				f.From, f.To = 1, 1
			}
		}
		from := 1 + rng.IntN(len(events)+5)
		page := 1 + rng.IntN(15)
		var want []string
		for k := range events {
			if events[k].Position >= eventindex.Position(from) && f.Match(&events[k]) {
				want = append(want, fmt.Sprint(uint64(events[k].Position)))
			}
		}
		var got []string
		for pos := from; ; {
			rows := env.exec(ctx, fmt.Sprintf("SELECT position FROM dolt_read_all('%s', %d, %d)", filter, pos, page))
			for _, r := range rows {
				got = append(got, fmt.Sprint(r[0]))
			}
			if len(rows) < page {
				break
			}
			pos = int(rows[len(rows)-1][0].(uint64)) + 1
		}
		if !slices.Equal(got, want) {
			t.Fatalf("dolt_read_all('%s', %d, pages of %d):\n got %v\nwant %v", filter, from, page, got, want)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
