package sqlserver

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/eventindex"
	"github.com/verso-db/verso/internal/testseed"
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
	env.exec(ctx, "CALL dolt_add('-A')")
	env.check(ctx, "SELECT diff_type, to_position, to_commit FROM dolt_diff('HEAD', 'STAGED', 'dolt_events')", "[added 17 STAGED]")
	env.check(ctx, "SELECT count(*) FROM dolt_diff('STAGED', 'WORKING', 'dolt_events')", "[0]")
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
	// The append was staged (dolt_add above): dolt_diff lists it as
	// STAGED, not WORKING, as Dolt does.
	env.check(ctx, "SELECT commit_hash, table_name, data_change FROM dolt_diff WHERE commit_hash IN ('WORKING', 'STAGED')", "[STAGED dolt_events 1]")
}

// TestEventsDiffRandom builds a seeded random history (appends, max
// count, truncate-before, soft deletes, merges of a branch's streams) and
// checks after each commit, and for the working root, that
// dolt_diff(parent, commit, 'dolt_events') and dolt_diff_dolt_events give
// what the naive comparison of the two logs gives.
func TestEventsDiffRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 10))
	env := newMemoryEnv(t)
	ctx := setupDB(env)
	env.exec(ctx, "CALL dolt_branch('feature')")
	streams := []string{"A-1", "A-2", "B-1", "B-2"}
	branch := "main"
	commits, merges := 0, 0
	kinds := map[string]int{}
	for step := 0; step < 60; step++ {
		s := streams[rng.IntN(len(streams))]
		if branch == "feature" {
			s = "F-" + s
		}
		op := rng.IntN(10)
		switch {
		case op < 5:
			var evs []string
			for range 1 + rng.IntN(4) {
				evs = append(evs, fmt.Sprintf(`{"event_type": "T%d", "data": {"n": %d}}`, rng.IntN(3), rng.IntN(100)))
			}
			env.exec(ctx, fmt.Sprintf("CALL dolt_append_events('%s', 'any', '[%s]')", s, strings.Join(evs, ", ")))
		case op == 5:
			env.exec(ctx, fmt.Sprintf(`CALL dolt_stream_metadata('%s', '{"$maxCount": %d}')`, s, 1+rng.IntN(3)))
		case op == 6:
			env.exec(ctx, fmt.Sprintf(`CALL dolt_stream_metadata('%s', '{"$tb": %d}')`, s, rng.IntN(4)))
		case op == 7:
			if rows, _ := env.query(ctx, fmt.Sprintf("SELECT 1 FROM dolt_streams WHERE stream_id = '%s' AND version >= 0", s)); len(rows) > 0 {
				env.exec(ctx, fmt.Sprintf("CALL dolt_delete_stream('%s')", s))
			}
		case op == 8 && branch == "main":
			// Work on feature for a while; it merges back below.
			env.exec(ctx, "CALL dolt_commit('-Am', 'before feature', '--allow-empty')")
			env.exec(ctx, "CALL dolt_checkout('feature')")
			env.exec(ctx, "CALL dolt_merge('main')")
			branch = "feature"
			continue
		case op == 8:
			env.exec(ctx, "CALL dolt_commit('-Am', 'feature', '--allow-empty')")
			env.exec(ctx, "CALL dolt_checkout('main')")
			// An event on main meanwhile: the merge renumbers feature's.
			env.exec(ctx, fmt.Sprintf(`CALL dolt_append_events('%s', 'any', '[{"event_type": "M"}]')`, s[2:]))
			env.exec(ctx, "CALL dolt_commit('-Am', 'main meanwhile')")
			env.exec(ctx, "CALL dolt_merge('feature', '--no-ff', '-m', 'merge')")
			merges++
			branch = "main"
		}
		if branch == "main" && (rng.IntN(3) == 0 || op == 8) {
			if op != 8 { // a merge is a commit of its own
				env.exec(ctx, fmt.Sprintf("CALL dolt_commit('-Am', 'step %d', '--allow-empty')", step))
			}
			commits++
			head := fmt.Sprint(env.exec(ctx, "SELECT hashof('HEAD')")[0][0])
			for _, r := range env.exec(ctx, fmt.Sprintf("SELECT parent_hash FROM dolt_commit_ancestors WHERE commit_hash = '%s'", head)) {
				p := fmt.Sprint(r[0])
				want := naiveEventDiff(t, env, p, head)
				for _, w := range want {
					kinds[strings.Fields(w)[0]]++
				}
				got := diffStrings(env.exec(ctx, fmt.Sprintf("SELECT %s FROM dolt_diff('%s', '%s', 'dolt_events')", diffCols, p, head)))
				checkDiff(t, fmt.Sprintf("step %d: dolt_diff(%s, HEAD)", step, p), got, want)
				got = diffStrings(env.exec(ctx, fmt.Sprintf("SELECT %s FROM dolt_diff_dolt_events WHERE to_commit = '%s' AND from_commit = '%s'", diffCols, head, p)))
				checkDiff(t, fmt.Sprintf("step %d: dolt_diff_dolt_events to %s from %s", step, head, p), got, want)
			}
		}
	}
	if branch == "main" {
		head := fmt.Sprint(env.exec(ctx, "SELECT hashof('HEAD')")[0][0])
		want := naiveEventDiff(t, env, head, "WORKING")
		got := diffStrings(env.exec(ctx, fmt.Sprintf("SELECT %s FROM dolt_diff_dolt_events WHERE to_commit = 'WORKING'", diffCols)))
		checkDiff(t, "WORKING", got, want)
	}
	t.Logf("%d commits, %d merges, event changes %v", commits, merges, kinds)
	if commits < 5 || kinds["added"] == 0 || kinds["removed"] == 0 {
		t.Fatalf("the history is too thin: %d commits, changes %v", commits, kinds)
	}
}
