package web

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// apiPaths are every API of the console, with parameters that make each
// one answer for a logged-in root.
var apiPaths = []string{
	"/api/session", "/api/databases", "/api/db/d/refs", "/api/db/d/log", "/api/db/d/search?q=rows",
	"/api/db/d/commit/HEAD", "/api/db/d/compare?from=HEAD~1&to=HEAD", "/api/db/d/diff?from=HEAD~1&to=HEAD&table=t",
	"/api/db/d/events/stats", "/api/db/d/events/streams", "/api/db/d/events/read?stream=$all",
}

func TestNoAnswerWithoutSession(t *testing.T) {
	f := newFixture(t, history...)
	anon := newClient(t, f)
	for _, p := range apiPaths {
		var body map[string]any
		if st := anon.get(p, &body); st != http.StatusUnauthorized || body["error"] == nil {
			t.Errorf("GET %s without a session: %d %v; want 401 with an error", p, st, body)
		}
	}
	if st, _ := anon.post("/api/db/d/query", map[string]any{"sql": "SELECT 1"}); st != http.StatusUnauthorized {
		t.Errorf("POST query without a session: %d; want 401", st)
	}
	if st, _ := anon.post("/logout", nil); st != http.StatusUnauthorized {
		t.Errorf("POST logout without a session: %d; want 401", st)
	}
	resp, err := anon.http.Get(anon.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("the page without a session: %d to %q; want a redirect to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A made-up cookie is no session.
	u := anon.base + "/api/databases"
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: newToken()})
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a forged session cookie: %d; want 401", resp.StatusCode)
	}
	// Every API answers a logged-in root.
	root := newClient(t, f)
	if st := root.login("root", ""); st != http.StatusSeeOther {
		t.Fatalf("root's login: %d", st)
	}
	for _, p := range apiPaths {
		var body map[string]any
		if st := root.get(p, &body); st != http.StatusOK {
			t.Errorf("GET %s as root: %d %v", p, st, body)
		}
	}
}

func TestLogin(t *testing.T) {
	f := newFixture(t, history...)
	c := newClient(t, f)
	for _, bad := range [][2]string{{"reader", "wrong"}, {"reader", ""}, {"nobody", "x"}, {"root", "x"}} {
		start := time.Now()
		if st := c.login(bad[0], bad[1]); st != http.StatusUnauthorized {
			t.Errorf("login %s/%s: %d; want 401", bad[0], bad[1], st)
		}
		if time.Since(start) < failedLoginDelay {
			t.Errorf("a failed login answered within %v", failedLoginDelay)
		}
		if st := c.get("/api/session", nil); st != http.StatusUnauthorized {
			t.Errorf("a failed login made a session: %d", st)
		}
	}
	// The form's token must come back with the login (login CSRF).
	resp, err := c.http.PostForm(c.base+"/login", map[string][]string{"user": {"reader"}, "password": {"rpw"}, "token": {"forged"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("login without the form's token: %d; want 403", resp.StatusCode)
	}
	if st := c.login("reader", "rpw"); st != http.StatusSeeOther {
		t.Fatalf("reader's login: %d", st)
	}
	var s map[string]string
	c.get("/api/session", &s)
	if s["user"] != "reader" || s["host"] != "%" || len(s["csrf"]) < 40 {
		t.Errorf("session: %v", s)
	}
	// The cookie is HttpOnly and SameSite=Strict.
	c2 := newClient(t, f)
	resp, _ = c2.http.Get(c2.base + "/login")
	page := new(strings.Builder)
	fmt.Fprint(page, resp.Header)
	resp.Body.Close()
	if !strings.Contains(page.String(), "HttpOnly") || !strings.Contains(page.String(), "SameSite=Strict") {
		t.Errorf("login cookie attributes: %s", page)
	}
	// Logout needs the token, and ends the session.
	if st, _ := c.post("/logout", nil); st != http.StatusForbidden {
		t.Errorf("logout without the CSRF token: %d; want 403", st)
	}
	if st, _ := c.post("/logout", nil, csrfHeader, c.csrf); st != http.StatusOK {
		t.Errorf("logout: %d", st)
	}
	if st := c.get("/api/session", nil); st != http.StatusUnauthorized {
		t.Errorf("after logout: %d; want 401", st)
	}
	// A dropped account's session ends.
	w := newClient(t, f)
	if st := w.login("writer", "wpw"); st != http.StatusSeeOther {
		t.Fatalf("writer's login: %d", st)
	}
	f.exec(t, "DROP USER writer@'%'")
	if st := w.get("/api/databases", nil); st != http.StatusUnauthorized {
		t.Errorf("the session of a dropped account: %d; want 401", st)
	}
}

func TestSessionExpiry(t *testing.T) {
	s := newSessions()
	now := time.Unix(1_000_000, 0)
	s.now = func() time.Time { return now }
	tok, _ := s.add(account{User: "u", Host: "%"})
	now = now.Add(SessionIdle - time.Second)
	if s.get(tok) == nil {
		t.Fatal("a session used within SessionIdle ended")
	}
	for i := 0; i < int(SessionMax/SessionIdle)+1; i++ {
		now = now.Add(SessionIdle - time.Second)
		s.get(tok)
	}
	if s.get(tok) != nil {
		t.Error("a session outlived SessionMax")
	}
	tok, _ = s.add(account{User: "u", Host: "%"})
	now = now.Add(SessionIdle + time.Second)
	if s.get(tok) != nil {
		t.Error("an idle session outlived SessionIdle")
	}
}

func TestGrantsApplied(t *testing.T) {
	f := newFixture(t, history...)
	o := newClient(t, f)
	if st := o.login("other", "opw"); st != http.StatusSeeOther {
		t.Fatalf("login: %d", st)
	}
	var dbs struct{ Databases []string }
	o.get("/api/databases", &dbs)
	if !slices.Equal(dbs.Databases, []string{"e"}) {
		t.Errorf("other sees databases %v; want only e", dbs.Databases)
	}
	for _, p := range apiPaths[2:] {
		var body apiError
		st := o.get(p, &body)
		if st != http.StatusForbidden || body.SQL == nil || body.SQL.Num != 1044 {
			t.Errorf("GET %s as other: %d %+v; want 403 with error 1044", p, st, body)
		}
	}
	if st, body := o.query("d", map[string]any{"sql": "SELECT * FROM t"}); st != http.StatusForbidden {
		t.Errorf("query of d as other: %d %v; want 403", st, body)
	}
	// reader sees d, not e.
	r := newClient(t, f)
	r.login("reader", "rpw")
	r.get("/api/databases", &dbs)
	if !slices.Equal(dbs.Databases, []string{"d"}) {
		t.Errorf("reader sees databases %v; want only d", dbs.Databases)
	}
}

func TestCSRF(t *testing.T) {
	f := newFixture(t, history...)
	c := newClient(t, f)
	c.login("writer", "wpw")
	q := map[string]any{"sql": "SELECT COUNT(*) FROM t"}
	for _, h := range [][]string{
		nil,
		{csrfHeader, "wrong"},
		{csrfHeader, c.csrf, "Origin", "http://evil.example"},
		{csrfHeader, c.csrf, "Sec-Fetch-Site", "cross-site"},
	} {
		if st, body := c.post("/api/db/d/query", q, h...); st != http.StatusForbidden {
			t.Errorf("query with headers %v: %d %v; want 403", h, st, body)
		}
	}
	// Another session's token is no good either.
	other := newClient(t, f)
	other.login("root", "")
	if st, _ := c.post("/api/db/d/query", q, csrfHeader, other.csrf); st != http.StatusForbidden {
		t.Errorf("query with another session's token: %d; want 403", st)
	}
	if st, body := c.post("/api/db/d/query", q, csrfHeader, c.csrf, "Origin", c.base); st != http.StatusOK {
		t.Errorf("query with the token from the console's origin: %d %v", st, body)
	}
}

func TestQueryBox(t *testing.T) {
	f := newFixture(t, history...)
	r := newClient(t, f)
	r.login("reader", "rpw")
	// A read runs, paged.
	st, body := r.query("d", map[string]any{"sql": "SELECT id FROM t ORDER BY id", "limit": 2})
	if st != http.StatusOK || fmt.Sprint(body["rows"]) != "[[1] [2]]" || body["more"] != true {
		t.Errorf("first page: %d %v", st, body)
	}
	_, body = r.query("d", map[string]any{"sql": "SELECT id FROM t ORDER BY id", "limit": 2, "offset": 2})
	if fmt.Sprint(body["rows"]) != "[[10]]" || body["more"] == true {
		t.Errorf("second page: %v", body)
	}
	// At a revision.
	_, body = r.query("d", map[string]any{"sql": "SELECT COUNT(*) FROM t", "rev": "HEAD~3"})
	if fmt.Sprint(body["rows"]) != "[[3]]" {
		t.Errorf("at HEAD~3: %v", body)
	}
	// A write asks first, and the read-only account is refused when it
	// confirms.
	ins := map[string]any{"sql": "INSERT INTO t (id) VALUES (100)"}
	if st, body := r.query("d", ins); st != http.StatusOK || body["confirm"] == nil {
		t.Errorf("an unconfirmed write: %d %v; want a question", st, body)
	}
	ins["write"] = true
	st, body = r.query("d", ins)
	if sqlErr, _ := body["sql"].(map[string]any); st != http.StatusForbidden || sqlErr["errno"] != float64(1142) {
		t.Errorf("a confirmed write of a read-only account: %d %v; want 403 with 1142", st, body)
	}
	// Statements that write while looking like reads are writes.
	for _, q := range []string{"SELECT * FROM t INTO OUTFILE 'x.csv'", "SELECT 1; DELETE FROM t", "CALL dolt_commit('-am', 'x')"} {
		st, body := r.query("d", map[string]any{"sql": q})
		if st == http.StatusOK && body["confirm"] == nil {
			t.Errorf("%s ran without confirmation: %v", q, body)
		}
	}
	// A writer's confirmed write runs; an unconfirmed one does not.
	w := newClient(t, f)
	w.login("writer", "wpw")
	if _, body := w.query("d", map[string]any{"sql": "DELETE FROM t WHERE id = 1"}); body["confirm"] == nil {
		t.Errorf("unconfirmed delete: %v", body)
	}
	if n := f.rows(t, "SELECT COUNT(*) FROM d.t WHERE id = 1")[0][0]; n != "1" {
		t.Fatal("an unconfirmed write ran")
	}
	st, body = w.query("d", map[string]any{"sql": "DELETE FROM t WHERE id = 1", "write": true})
	if st != http.StatusOK || body["affected"] != float64(1) {
		t.Errorf("confirmed delete: %d %v", st, body)
	}
	if n := f.rows(t, "SELECT COUNT(*) FROM d.t WHERE id = 1")[0][0]; n != "0" {
		t.Error("the confirmed write did not run")
	}
	// Errors are the server's, by number.
	_, body = w.query("d", map[string]any{"sql": "SELECT * FROM nope"})
	if sqlErr, _ := body["sql"].(map[string]any); sqlErr["errno"] != float64(1146) {
		t.Errorf("missing table: %v", body)
	}
}

func TestClassify(t *testing.T) {
	for q, want := range map[string]statementKind{
		"SELECT 1":                             readStatement,
		"select * from t where a = 'x;y'":      readStatement,
		"SELECT 1 UNION SELECT 2":              readStatement,
		"SHOW TABLES":                          readStatement,
		"DESCRIBE t":                           readStatement,
		"EXPLAIN SELECT * FROM t":              readStatement,
		"WITH a AS (SELECT 1) SELECT * FROM a": readStatement,
		"SELECT 1;":                            readStatement,
		"SELECT * FROM t INTO OUTFILE '/x'":    writeStatement,
		"SELECT 1 INTO @a":                     writeStatement,
		"INSERT INTO t VALUES (1)":             writeStatement,
		"CALL dolt_commit('-am', 'x')":         writeStatement,
		"SET @@GLOBAL.read_only = 1":           writeStatement,
		"CREATE TABLE x (a INT)":               writeStatement,
		"USE other":                            writeStatement,
	} {
		got, err := classify(q)
		if err != nil || got != want {
			t.Errorf("classify(%q) = %v, %v; want %v", q, got, err, want)
		}
	}
	for _, q := range []string{"", "  ", "SELECT 1; SELECT 2", "SELEC 1"} {
		if _, err := classify(q); err == nil {
			t.Errorf("classify(%q) took it", q)
		}
	}
}

// TestLogPaging pages through random histories with random page sizes:
// the pages, joined, are dolt_log's commits (every branch, or one),
// each once, children before parents, with dolt_log's parents.
func TestLogPaging(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	f := newFixture(t, "CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY)", "CALL dolt_commit('-Am', 'table')")
	branches := []string{"main"}
	for i := 0; i < 60; i++ {
		b := branches[rng.IntN(len(branches))]
		f.exec(t, "CALL dolt_checkout('"+b+"')")
		switch rng.IntN(6) {
		case 0:
			nb := fmt.Sprintf("b%d", i)
			f.exec(t, "CALL dolt_branch('"+nb+"')")
			branches = append(branches, nb)
		case 1:
			other := branches[rng.IntN(len(branches))]
			if other != b {
				if _, err := f.root.Exec("CALL dolt_merge('" + other + "', '--no-ff', '-m', 'merge')"); err != nil {
					f.exec(t, "CALL dolt_merge('--abort')")
				}
				continue
			}
			fallthrough
		default:
			f.exec(t, fmt.Sprintf("INSERT INTO t VALUES (%d)", i), fmt.Sprintf("CALL dolt_commit('-am', 'c%d on %s')", i, b))
		}
	}
	c := newClient(t, f)
	c.login("root", "")
	for _, rev := range []string{"", "main", branches[len(branches)-1]} {
		args := "'--all', '--parents'"
		if rev != "" {
			args = "'" + rev + "', '--parents'"
		}
		want := map[string]string{}
		for _, r := range f.rows(t, "SELECT commit_hash, parents FROM dolt_log("+args+")") {
			want[r[0]] = strings.ReplaceAll(r[1], " ", "")
		}
		var got []logCommit
		pos := map[string]int{}
		next := ""
		for pages := 0; ; pages++ {
			var page struct {
				Commits []logCommit
				Next    string
			}
			limit := 1 + rng.IntN(12)
			if st := c.get(fmt.Sprintf("/api/db/d/log?rev=%s&limit=%d&after=%s", rev, limit, next), &page); st != http.StatusOK {
				t.Fatalf("page %d: %d", pages, st)
			}
			if len(page.Commits) > limit || page.Next != "" && len(page.Commits) != limit {
				t.Fatalf("page of %d commits for a limit of %d (next %q)", len(page.Commits), limit, page.Next)
			}
			for _, lc := range page.Commits {
				if _, dup := pos[lc.Hash]; dup {
					t.Fatalf("rev %q: commit %s listed twice", rev, lc.Hash)
				}
				pos[lc.Hash] = len(got)
				got = append(got, lc)
			}
			if next = page.Next; next == "" {
				break
			}
		}
		if len(got) != len(want) {
			t.Fatalf("rev %q: %d commits paged; dolt_log has %d", rev, len(got), len(want))
		}
		for _, lc := range got {
			w, ok := want[lc.Hash]
			if !ok || w != strings.Join(lc.Parents, ",") {
				t.Errorf("rev %q: commit %s with parents %v; dolt_log: %q (listed: %v)", rev, lc.Hash, lc.Parents, w, ok)
			}
			for _, p := range lc.Parents {
				if pos[p] <= pos[lc.Hash] {
					t.Errorf("rev %q: parent %s listed before its child %s", rev, p, lc.Hash)
				}
			}
		}
	}
}

// TestCommitMatchesSQL: a commit's page gives, against each parent, the
// tables of dolt_diff_summary and the rows of dolt_diff.
func TestCommitMatchesSQL(t *testing.T) {
	f := newFixture(t, history...)
	c := newClient(t, f)
	c.login("reader", "rpw")
	for _, rev := range []string{"HEAD", "HEAD~1", "feature", "HEAD~3"} {
		var cm struct {
			Hash    string
			Parents []string
			Diffs   []changes
		}
		if st := c.get("/api/db/d/commit/"+rev, &cm); st != http.StatusOK {
			t.Fatalf("%s: %d", rev, st)
		}
		want := f.rows(t, "SELECT parents FROM dolt_log('"+rev+"', '--parents') LIMIT 1")[0][0]
		if strings.Join(cm.Parents, ", ") != want || len(cm.Diffs) != len(cm.Parents) {
			t.Errorf("%s: parents %v, %d diffs; dolt_log: %s", rev, cm.Parents, len(cm.Diffs), want)
		}
		for _, d := range cm.Diffs {
			var names []string
			for _, tc := range d.Tables {
				names = append(names, tc.To+"/"+tc.DiffType)
			}
			var wantNames []string
			for _, r := range f.rows(t, fmt.Sprintf("SELECT to_table_name, diff_type FROM dolt_diff_summary('%s', '%s')", d.From, d.To)) {
				wantNames = append(wantNames, r[0]+"/"+r[1])
			}
			if !slices.Equal(names, wantNames) {
				t.Errorf("%s against %s: tables %v; dolt_diff_summary: %v", rev, d.From, names, wantNames)
			}
			var diff struct {
				Columns []string
				Rows    [][]*string
			}
			c.get(fmt.Sprintf("/api/db/d/diff?from=%s&to=%s&table=t&limit=1000", d.From, d.To), &diff)
			wantRows := f.rows(t, fmt.Sprintf("SELECT * FROM dolt_diff('%s', '%s', 't')", d.From, d.To))
			if len(diff.Rows) != len(wantRows) {
				t.Fatalf("%s against %s: %d diff rows; dolt_diff: %d", rev, d.From, len(diff.Rows), len(wantRows))
			}
			for i, r := range diff.Rows {
				for j, v := range r {
					if got := "NULL"; v != nil {
						got = *v
						if got != wantRows[i][j] {
							t.Errorf("%s row %d column %s: %q; dolt_diff: %q", rev, i, diff.Columns[j], got, wantRows[i][j])
						}
					} else if wantRows[i][j] != "NULL" {
						t.Errorf("%s row %d column %s: NULL; dolt_diff: %q", rev, i, diff.Columns[j], wantRows[i][j])
					}
				}
			}
		}
	}
	// The events commit shows its events.
	var cm struct{ Diffs []changes }
	c.get("/api/db/d/commit/HEAD~2", &cm)
	if cm.Diffs[0].Events["added"] != "4" {
		t.Errorf("events of the events commit: %v; want 4 added", cm.Diffs[0].Events)
	}
}

func TestEventStatsMatchSQL(t *testing.T) {
	f := newFixture(t, history...)
	c := newClient(t, f)
	c.login("reader", "rpw")
	var s struct {
		Rows    [][]*string
		Streams string
	}
	c.get("/api/db/d/events/stats", &s)
	want := f.rows(t, "SELECT * FROM d.dolt_event_stats")
	if len(s.Rows) != len(want) || s.Streams != "3" {
		t.Fatalf("%d stats rows and %s streams; dolt_event_stats has %d rows, and there are 3 streams", len(s.Rows), s.Streams, len(want))
	}
	for i, r := range s.Rows {
		for j, v := range r {
			got := "NULL"
			if v != nil {
				got = *v
			}
			if got != want[i][j] {
				t.Errorf("row %d column %d: %q; dolt_event_stats: %q", i, j, got, want[i][j])
			}
		}
	}
	// Reading an index page by page gives its events once each.
	var seen []string
	from := "0"
	for from != "" {
		var page struct {
			Rows [][]*string
			Next string
		}
		if st := c.get("/api/db/d/events/read?stream=$idx-ce-order&limit=1&from="+from, &page); st != http.StatusOK {
			t.Fatalf("read: %d", st)
		}
		for _, r := range page.Rows {
			seen = append(seen, *r[1]+"/"+*r[4])
		}
		from = page.Next
	}
	if fmt.Sprint(seen) != "[order-1/Created order-1/Paid order-2/Created]" {
		t.Errorf("$idx-ce-order read a page at a time: %v", seen)
	}
	var streams struct{ Rows [][]*string }
	c.get("/api/db/d/events/streams?category=user", &streams)
	if len(streams.Rows) != 1 || *streams.Rows[0][0] != "user-7" {
		t.Errorf("streams of user: %v", streams.Rows)
	}
}

func TestNoPasswordStaysOnLoopback(t *testing.T) {
	f := newFixture(t)
	if _, err := New(f.srv, Config{Address: "0.0.0.0:0"}); err == nil {
		t.Fatal("a console on every address with a passwordless superuser")
	}
}
