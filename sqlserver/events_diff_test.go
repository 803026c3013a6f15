package sqlserver

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/eventindex"
)

// diffCols are the columns the event diff tests compare.
const diffCols = "diff_type, to_position, to_stream_id, to_event_number, to_event_id, to_event_type, " +
	"from_position, from_stream_id, from_event_number, from_event_id, from_event_type"

// naiveEventDiff reads every event of the logs at two revisions (commit
// hashes, or WORKING) and compares them by position: the answer the event
// diffs must give, in diffCols' form.
func naiveEventDiff(t *testing.T, env *testEnv, from, to string) []string {
	t.Helper()
	a, b := readAllEvents(t, env, from), readAllEvents(t, env, to)
	var ps []eventindex.Position
	for p := range a {
		ps = append(ps, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	side := func(e *eventindex.Event) string {
		if e == nil {
			return "NULL NULL NULL NULL NULL"
		}
		return fmt.Sprintf("%d %s %d %s %s", e.Position, e.Stream, e.Number, e.ID, e.Type)
	}
	var out []string
	for _, p := range ps {
		f, inF := a[p]
		tt, inT := b[p]
		switch {
		case !inF:
			out = append(out, "added "+side(&tt)+" "+side(nil))
		case !inT:
			out = append(out, "removed "+side(nil)+" "+side(&f))
		case !sameEvent(&f, &tt):
			out = append(out, "modified "+side(&tt)+" "+side(&f))
		}
	}
	return out
}

func sameEvent(a, b *eventindex.Event) bool {
	return a.Stream == b.Stream && a.Number == b.Number && a.ID == b.ID && a.Type == b.Type &&
		a.Created.Equal(b.Created) && bytes.Equal(a.Data, b.Data) && bytes.Equal(a.Metadata, b.Metadata)
}

// readAllEvents reads every event of the log at rev (a commit hash, or
// WORKING: main's working root) with eventindex.
func readAllEvents(t *testing.T, env *testEnv, rev string) map[eventindex.Position]eventindex.Event {
	t.Helper()
	g, ok := env.p.CommitGraph("db")
	if !ok {
		t.Fatal("no database db")
	}
	ctx := env.session("db")
	var rootAddr chunks.Address
	if rev == "WORKING" {
		ws, err := g.WorkingSet(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		rootAddr = ws.Working
	} else {
		a, err := chunks.ParseAddress(rev)
		if err != nil {
			t.Fatal(err)
		}
		c, err := g.ReadCommit(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		rootAddr = c.Root
	}
	root, err := g.OpenRoot(ctx, rootAddr)
	if err != nil {
		t.Fatal(err)
	}
	l, err := eventindex.LoadLog(ctx, g.NodeStore(), root)
	if err != nil {
		t.Fatal(err)
	}
	out := map[eventindex.Position]eventindex.Event{}
	f := eventindex.Filter{}
	for {
		evs, next, err := l.Read(ctx, f, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			e.Data, e.Metadata = bytes.Clone(e.Data), bytes.Clone(e.Metadata)
			out[e.Position] = e
		}
		if len(evs) == 0 {
			return out
		}
		f.From = next
	}
}

// diffStrings formats rows of diffCols as naiveEventDiff does.
func diffStrings(rows []sql.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		s := make([]string, len(r))
		for j, v := range r {
			if v == nil {
				s[j] = "NULL"
			} else {
				s[j] = fmt.Sprint(v)
			}
		}
		out[i] = strings.Join(s, " ")
	}
	return out
}

func checkDiff(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// The diffs of the event log (dolt_diff(from, to, 'dolt_events') and
// dolt_diff_dolt_events) give what a naive comparison of the two logs by
// position gives, on a history of appends, retention (max count,
// truncate-before, soft and hard deletes) and a merge that renumbers
// theirs' events.
func TestEventsDiff(t *testing.T) {
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, `CALL dolt_append_events('Order-1', 'no_stream', '[{"event_type": "OrderCreated", "data": {"n": 1}}, {"event_type": "OrderPaid"}]')`)
	env.exec(ctx, `CALL dolt_append_events('Log-1', 'any', '[{"event_type": "A"}, {"event_type": "A"}, {"event_type": "B"}, {"event_type": "B"}, {"event_type": "C"}]')`)
	env.exec(ctx, `CALL dolt_append_events('Log-2', 'any', '[{"event_type": "A"}, {"event_type": "A"}, {"event_type": "A"}]')`)
	env.exec(ctx, `CALL dolt_append_events('Soft-1', 'any', '[{"event_type": "A"}, {"event_type": "B"}]')`)
	env.exec(ctx, `CALL dolt_append_events('Hard-1', 'any', '[{"event_type": "A"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'appends')")

	// Retention in one commit: its diff shows what it removed.
	env.exec(ctx, `CALL dolt_stream_metadata('Log-1', '{"$maxCount": 2}')`)
	env.exec(ctx, `CALL dolt_stream_metadata('Log-2', '{"$tb": 2}')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'retention')")
	env.check(ctx, "SELECT diff_type, from_position, from_stream_id, from_event_number FROM dolt_diff('HEAD~1', 'HEAD', 'dolt_events')",
		"[removed 3 Log-1 0] [removed 4 Log-1 1] [removed 5 Log-1 2] [removed 8 Log-2 0] [removed 9 Log-2 1]")
	env.exec(ctx, "CALL dolt_delete_stream('Soft-1')")
	env.exec(ctx, "CALL dolt_delete_stream('Hard-1', '--hard')")
	env.exec(ctx, "CALL dolt_commit('-Am', 'deletes')")
	env.check(ctx, "SELECT diff_type, from_position, from_stream_id FROM dolt_diff('HEAD~1..HEAD', 'dolt_events')",
		"[removed 11 Soft-1] [removed 12 Soft-1] [removed 13 Hard-1]")

	// A merge: theirs' events go after ours', renumbered.
	env.exec(ctx, "CALL dolt_branch('feature')")
	env.exec(ctx, `CALL dolt_append_events('Order-2', 'no_stream', '[{"event_type": "OrderCreated"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'order 2 on main')")
	env.exec(ctx, "CALL dolt_checkout('feature')")
	env.exec(ctx, `CALL dolt_append_events('Order-3', 'no_stream', '[{"event_type": "OrderCreated"}, {"event_type": "OrderPaid"}]')`)
	env.exec(ctx, "CALL dolt_commit('-Am', 'order 3 on feature')")
	env.exec(ctx, "CALL dolt_checkout('main')")
	env.exec(ctx, "CALL dolt_merge('feature')")
	env.check(ctx, "SELECT diff_type, to_position, to_stream_id, from_position, from_stream_id FROM dolt_diff('feature', 'main', 'dolt_events')",
		"[modified 14 Order-2 14 Order-3] [modified 15 Order-3 15 Order-3] [added 16 Order-3 NULL NULL]")
	env.check(ctx, "SELECT diff_type, to_position, to_stream_id FROM dolt_diff('main~1...feature', 'dolt_events')",
		"[added 14 Order-3] [added 15 Order-3]")

	// Uncommitted: WORKING and STAGED.
	env.exec(ctx, `CALL dolt_append_events('Order-2', 'any', '[{"event_type": "OrderPaid"}]')`)
	env.check(ctx, "SELECT diff_type, to_position, to_commit, from_commit FROM dolt_diff('HEAD', 'WORKING', 'dolt_events')",
		"[added 17 WORKING HEAD]")
	env.check(ctx, "SELECT count(*) FROM dolt_diff('HEAD', 'STAGED', 'dolt_events')", "[0]")
	env.check(ctx, "SELECT to_position, to_commit FROM dolt_diff_dolt_events WHERE to_commit = 'WORKING'", "[17 WORKING]")

	// Every commit against each parent, and WORKING against HEAD, as the
	// naive comparison gives them, through the table function, the
	// system table's lookups and its scan.
	head := fmt.Sprint(env.exec(ctx, "SELECT hashof('HEAD')")[0][0])
	pairs := [][2]string{{head, "WORKING"}}
	for _, r := range env.exec(ctx, "SELECT commit_hash, parent_hash FROM dolt_commit_ancestors") {
		if r[1] != nil {
			pairs = append(pairs, [2]string{fmt.Sprint(r[1]), fmt.Sprint(r[0])})
		}
	}
	var all []string
	byTo := map[string][]string{}
	byFrom := map[string][]string{}
	for _, p := range pairs {
		want := naiveEventDiff(t, env, p[0], p[1])
		got := diffStrings(env.exec(ctx, fmt.Sprintf("SELECT %s FROM dolt_diff('%s', '%s', 'dolt_events')", diffCols, p[0], p[1])))
		checkDiff(t, fmt.Sprintf("dolt_diff(%s, %s)", p[0], p[1]), got, want)
		for _, w := range want {
			all = append(all, p[1]+" "+p[0]+" "+w)
		}
		byTo[p[1]] = append(byTo[p[1]], want...)
		byFrom[p[0]] = append(byFrom[p[0]], want...)
	}
	if len(all) < 15 {
		t.Fatalf("the history gave only %d event changes", len(all))
	}
	for to, want := range byTo {
		got := diffStrings(env.exec(ctx, fmt.Sprintf("SELECT %s FROM dolt_diff_dolt_events WHERE to_commit = '%s' ORDER BY from_commit, coalesce(to_position, from_position)", diffCols, to)))
		sort.Strings(got)
		sort.Strings(want)
		checkDiff(t, "dolt_diff_dolt_events to_commit = "+to, got, want)
	}
	for from, want := range byFrom {
		got := diffStrings(env.exec(ctx, fmt.Sprintf("SELECT %s FROM dolt_diff_dolt_events WHERE from_commit = '%s'", diffCols, from)))
		sort.Strings(got)
		sort.Strings(want)
		checkDiff(t, "dolt_diff_dolt_events from_commit = "+from, got, want)
	}
	got := diffStrings(env.exec(ctx, "SELECT to_commit, from_commit, "+diffCols+" FROM dolt_diff_dolt_events"))
	sort.Strings(got)
	sort.Strings(all)
	checkDiff(t, "dolt_diff_dolt_events scan", got, all)

	// The merge against each parent: two events added to main, and
	// against feature two renumbered and one added.
	env.check(ctx, "SELECT from_commit = hashof('feature'), diff_type, count(*) FROM dolt_diff_dolt_events WHERE to_commit = hashof('HEAD') GROUP BY 1, 2 ORDER BY 1, 2",
		"[false added 2] [true added 1] [true modified 2]")
	env.check(ctx, "SELECT table_name, data_change FROM dolt_diff WHERE commit_hash = 'WORKING'", "[dolt_events 1]")
}
