package web

import (
	"bytes"
	gosql "database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/verso-db/verso/server"
	"github.com/verso-db/verso/sqlserver"
)

// fixture is a running server with its console, and root's connection
// over the wire.
type fixture struct {
	srv  *server.Server
	con  *Console
	root *gosql.DB
}

// newFixture starts a server over a memory provider, with its console on
// a free loopback port, and runs setup as root.
func newFixture(t testing.TB, setup ...string) *fixture {
	t.Helper()
	s, err := server.New(sqlserver.NewMemoryProvider(), server.Config{Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(func() { s.Close() })
	c, err := New(s, Config{Address: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	go c.Serve()
	t.Cleanup(func() { c.Close() })
	root, err := gosql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", s.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	root.SetMaxOpenConns(1)
	t.Cleanup(func() { root.Close() })
	f := &fixture{srv: s, con: c, root: root}
	f.exec(t, setup...)
	return f
}

func (f *fixture) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := f.root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// rows returns a query's rows as text (NULL as "NULL").
func (f *fixture) rows(t testing.TB, q string) [][]string {
	t.Helper()
	rs, err := f.root.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out [][]string
	for rs.Next() {
		vals := make([]gosql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// history is a database d with a table, two branches, a merge, a tag and
// events, and accounts: reader (SELECT on d), other (SELECT on e only)
// and writer (everything on d).
var history = []string{
	"CREATE DATABASE d", "CREATE DATABASE e", "USE d",
	"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), n INT)",
	"INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)",
	"CALL dolt_commit('-Am', 'first rows')",
	`CALL dolt_append_events('order-1', 'any', '[{"event_type": "Created", "data": {}}, {"event_type": "Paid", "data": {}}]')`,
	`CALL dolt_append_events('order-2', 'any', '[{"event_type": "Created", "data": {}}]')`,
	`CALL dolt_append_events('user-7', 'any', '[{"event_type": "Registered", "data": {}}]')`,
	"CALL dolt_commit('-Am', 'events')",
	"CALL dolt_checkout('-b', 'feature')",
	"UPDATE t SET v = 'B' WHERE id = 2",
	"INSERT INTO t VALUES (10, 'f', 10)",
	"CALL dolt_commit('-am', 'feature: change b, add 10')",
	"CALL dolt_checkout('main')",
	"DELETE FROM t WHERE id = 3",
	"ALTER TABLE t ADD COLUMN note TEXT",
	"CALL dolt_commit('-am', 'main: drop 3, add note')",
	"CALL dolt_merge('feature')",
	"CALL dolt_tag('v1')",
	"CREATE TABLE e.x (id INT PRIMARY KEY)",
	"CREATE USER reader@'%' IDENTIFIED BY 'rpw'", "GRANT SELECT ON d.* TO reader@'%'",
	"CREATE USER other@'%' IDENTIFIED BY 'opw'", "GRANT SELECT ON e.* TO other@'%'",
	"CREATE USER writer@'%' IDENTIFIED BY 'wpw'", "GRANT ALL ON d.* TO writer@'%'",
}

// client is a browser's session with the console.
type client struct {
	t    testing.TB
	base string
	http *http.Client
	csrf string
}

func newClient(t testing.TB, f *fixture) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: f.con.URL(), http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

var tokenRE = regexp.MustCompile(`name="token" value="([^"]+)"`)

// login submits the login form; it returns the answer's status.
func (c *client) login(user, password string) int {
	c.t.Helper()
	resp, err := c.http.Get(c.base + "/login")
	if err != nil {
		c.t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := tokenRE.FindSubmatch(page)
	if m == nil {
		c.t.Fatalf("no login token in the form:\n%s", page)
	}
	resp, err = c.http.PostForm(c.base+"/login", url.Values{"user": {user}, "password": {password}, "token": {string(m[1])}})
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusSeeOther {
		var s map[string]string
		if st := c.get("/api/session", &s); st != http.StatusOK {
			c.t.Fatalf("session after login: %d", st)
		}
		c.csrf = s["csrf"]
	}
	return resp.StatusCode
}

// get fetches path and decodes its JSON into v; it returns the status.
func (c *client) get(path string, v any) int {
	c.t.Helper()
	resp, err := c.http.Get(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	return decode(c.t, resp, v)
}

// post sends body as JSON with the headers given (key, value, ...).
func (c *client) post(path string, body any, headers ...string) (int, map[string]any) {
	c.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, c.base+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	st := decode(c.t, resp, &out)
	return st, out
}

// query runs a statement of the query box with the session's token.
func (c *client) query(db string, body map[string]any) (int, map[string]any) {
	return c.post("/api/db/"+db+"/query", body, csrfHeader, c.csrf)
}

func decode(t testing.TB, resp *http.Response, v any) int {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	if v != nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v in %s", resp.Request.URL, err, b)
		}
	}
	return resp.StatusCode
}
