package web

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Every API reads through a session of the logged-in account (sqlrun.go)
// with the same system tables and table functions a SQL client has:
// dolt_log, dolt_branches, dolt_diff_summary, dolt_diff, dolt_event_stats
// and the rest. What an account may not read in SQL it may not read here.

// The limits of a page.
const (
	defaultLogPage = 100
	maxLogPage     = 1000
	defaultRowPage = 100
	maxRowPage     = 1000
	maxEventPage   = 2000
	// MaxQueryRows is the most rows the query box returns of one
	// statement, over all its pages.
	MaxQueryRows = 10000
)

// serve runs f in a session of ws's account in database db (at revision
// rev, if not ""), within the console's statement timeout, and answers
// what it returns as JSON.
func (c *Console) serve(w http.ResponseWriter, r *http.Request, ws *webSession, db, rev string, f func(ctx context.Context, s *sqlConn) (any, error)) {
	if err := checkRevision(rev); err != nil {
		c.writeErr(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), c.timeout)
	defer cancel()
	s, err := c.open(ctx, ws.acct, db, rev)
	if err != nil {
		c.writeErr(w, err)
		return
	}
	defer s.close()
	v, err := f(ctx, s)
	if err != nil {
		c.writeErr(w, err)
		return
	}
	writeJSON(w, v)
}

var (
	hashRE = regexp.MustCompile(`^[0-9a-v]{32}$`)
	// revRE: a branch, tag or commit, with ~n and ^n (no ranges).
	revRE = regexp.MustCompile(`^[A-Za-z0-9_./@{}~^-]{1,256}$`)
)

// checkRevision refuses what is no revision name.
func checkRevision(rev string) error {
	if rev != "" && (!revRE.MatchString(rev) || strings.Contains(rev, "..")) {
		return badRequest{"not a revision: " + strconv.Quote(rev) + " (give a branch, a tag or a commit hash)"}
	}
	return nil
}

// intParam reads a non-negative integer parameter, def when absent, at
// most max.
func intParam(r *http.Request, name string, def, max int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, badRequest{name + " must be a whole number, not " + strconv.Quote(v)}
	}
	return min(n, max), nil
}

// pageParams reads offset and limit, a page of rows.
func pageParams(r *http.Request) (offset, limit int, err error) {
	if offset, err = intParam(r, "offset", 0, 1<<40); err != nil {
		return 0, 0, err
	}
	limit, err = intParam(r, "limit", defaultRowPage, maxRowPage)
	return offset, limit, err
}

// text returns a result's cell as a string ("" for NULL).
func text(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// apiSession says who is logged in, with the token for requests that
// change anything.
func (c *Console) apiSession(w http.ResponseWriter, r *http.Request, ws *webSession) {
	writeJSON(w, map[string]string{"user": ws.acct.User, "host": ws.acct.Host, "csrf": ws.csrf})
}

// systemSchemas are the databases the console does not list.
var systemSchemas = []string{"information_schema", "mysql", "performance_schema", "sys"}

// apiDatabases lists the databases the account can see (SHOW DATABASES).
func (c *Console) apiDatabases(w http.ResponseWriter, r *http.Request, ws *webSession) {
	c.serve(w, r, ws, "", "", func(ctx context.Context, s *sqlConn) (any, error) {
		res, err := s.exec(ctx, "SHOW DATABASES")
		if err != nil {
			return nil, err
		}
		dbs := []string{}
		for _, row := range res.Rows {
			if name := text(row[0]); !slices.Contains(systemSchemas, strings.ToLower(name)) {
				dbs = append(dbs, name)
			}
		}
		return map[string]any{"databases": dbs}, nil
	})
}

// ref is a branch or tag.
type ref struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// apiRefs lists a database's branches and tags, and the branch a session
// starts on.
func (c *Console) apiRefs(w http.ResponseWriter, r *http.Request, ws *webSession) {
	c.serve(w, r, ws, r.PathValue("db"), "", func(ctx context.Context, s *sqlConn) (any, error) {
		branches, err := refsOf(ctx, s, "SELECT name, hash FROM dolt_branches ORDER BY name")
		if err != nil {
			return nil, err
		}
		tags, err := refsOf(ctx, s, "SELECT tag_name, tag_hash FROM dolt_tags ORDER BY tag_name")
		if err != nil {
			return nil, err
		}
		head, err := refsOf(ctx, s, "SELECT active_branch(), hashof('HEAD')")
		if err != nil {
			return nil, err
		}
		return map[string]any{"branches": branches, "tags": tags, "head": head[0]}, nil
	})
}

// refsOf reads the (name, hash) rows of q.
func refsOf(ctx context.Context, s *sqlConn, q string) ([]ref, error) {
	res, err := s.exec(ctx, q)
	if err != nil {
		return nil, err
	}
	refs := []ref{}
	for _, row := range res.Rows {
		refs = append(refs, ref{text(row[0]), text(row[1])})
	}
	return refs, nil
}

// logCommit is a commit of the history page.
type logCommit struct {
	Hash    string   `json:"hash"`
	Parents []string `json:"parents"`
	Author  string   `json:"author"`
	Email   string   `json:"email"`
	Date    string   `json:"date"`
	Message string   `json:"message"`
	Refs    string   `json:"refs"`
}

// apiLog pages through a history in dolt_log's order (by height, newest
// first): of rev (a branch, tag or commit; every branch if ""), limit
// commits at a time. A page's next is the cursor of the following one:
// the commits not yet listed whose histories hold every commit still to
// list (the parents of those listed, and heads not reached yet). Since
// the order is by height, no commit listed can be in those histories, so
// the next page is dolt_log of them: each page costs its own commits, at
// any depth of a 100,000-commit history.
func (c *Console) apiLog(w http.ResponseWriter, r *http.Request, ws *webSession) {
	rev := r.URL.Query().Get("rev")
	limit, err := intParam(r, "limit", defaultLogPage, maxLogPage)
	if err != nil {
		c.writeErr(w, err)
		return
	}
	limit = max(limit, 1)
	var after []string
	if a := r.URL.Query().Get("after"); a != "" {
		after = strings.Split(a, ",")
		for _, h := range after {
			if !hashRE.MatchString(h) {
				c.writeErr(w, badRequest{"after must be commit hashes separated by commas"})
				return
			}
		}
	}
	c.serve(w, r, ws, r.PathValue("db"), "", func(ctx context.Context, s *sqlConn) (any, error) {
		if err := checkRevision(rev); err != nil {
			return nil, err
		}
		frontier := after
		if frontier == nil {
			// The heads the history starts from.
			q := "SELECT hashof(" + lit(rev) + ")"
			if rev == "" {
				q = "SELECT hash FROM dolt_branches UNION SELECT hashof('HEAD')"
			}
			res, err := s.exec(ctx, q)
			if err != nil {
				return nil, err
			}
			for _, row := range res.Rows {
				frontier = append(frontier, text(row[0]))
			}
		}
		args := make([]string, 0, len(frontier)+1)
		for _, h := range frontier {
			args = append(args, lit(h))
		}
		args = append(args, "'--parents'")
		res, err := s.query(ctx, "SELECT "+logColumns+" FROM dolt_log("+strings.Join(args, ", ")+")", 0, limit)
		if err != nil {
			return nil, err
		}
		commits := logCommits(res)
		shown := make(map[string]bool, len(commits))
		for _, lc := range commits {
			shown[lc.Hash] = true
		}
		next := ""
		if res.More {
			var cursor []string
			seen := map[string]bool{}
			add := func(h string) {
				if !shown[h] && !seen[h] {
					seen[h] = true
					cursor = append(cursor, h)
				}
			}
			for _, h := range frontier {
				add(h)
			}
			for _, lc := range commits {
				for _, p := range lc.Parents {
					add(p)
				}
			}
			next = strings.Join(cursor, ",")
		}
		return map[string]any{"commits": commits, "next": next}, nil
	})
}

// logColumns are the columns of dolt_log that logCommits reads.
const logColumns = "commit_hash, parents, committer, email, date, message, refs"

// logCommits reads the rows of a query of logColumns.
func logCommits(res *result) []logCommit {
	commits := make([]logCommit, 0, len(res.Rows))
	for _, row := range res.Rows {
		commits = append(commits, logCommit{Hash: text(row[0]), Parents: splitParents(text(row[1])), Author: text(row[2]), Email: text(row[3]),
			Date: text(row[4]), Message: text(row[5]), Refs: text(row[6])})
	}
	return commits
}

// splitParents splits dolt_log's parents column.
func splitParents(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// likeEscape escapes LIKE's wildcards in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// apiSearch finds commits of every branch by hash prefix, message or
// author (at most 50, newest first).
func (c *Console) apiSearch(w http.ResponseWriter, r *http.Request, ws *webSession) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" || len(q) > 200 {
		c.writeErr(w, badRequest{"give q: a hash prefix, or words of a message or an author (at most 200 characters)"})
		return
	}
	c.serve(w, r, ws, r.PathValue("db"), "", func(ctx context.Context, s *sqlConn) (any, error) {
		e := likeEscape(q)
		res, err := s.query(ctx, "SELECT "+logColumns+" FROM dolt_log('--all', '--parents') WHERE commit_hash LIKE "+
			lit(strings.ToLower(e)+"%")+" OR message LIKE "+lit("%"+e+"%")+" OR committer LIKE "+lit("%"+e+"%")+" OR email LIKE "+lit("%"+e+"%"), 0, 50)
		if err != nil {
			return nil, err
		}
		return map[string]any{"commits": logCommits(res), "more": res.More}, nil
	})
}

// tableChange is a table changed between two revisions, with its counts
// and its schema before and after if that changed.
type tableChange struct {
	From         string `json:"from"`
	To           string `json:"to"`
	DiffType     string `json:"diff_type"`
	DataChange   bool   `json:"data_change"`
	SchemaChange bool   `json:"schema_change"`
	Added        string `json:"rows_added,omitempty"`
	Deleted      string `json:"rows_deleted,omitempty"`
	Modified     string `json:"rows_modified,omitempty"`
	FromSchema   string `json:"from_schema,omitempty"`
	ToSchema     string `json:"to_schema,omitempty"`
}

// changes is what changed from one revision to another.
type changes struct {
	From   string        `json:"from"`
	To     string        `json:"to"`
	Tables []tableChange `json:"tables"`
	// Events counts the events added and removed (retention).
	Events map[string]string `json:"events"`
}

// diffOf is the changes from one revision to another.
func diffOf(ctx context.Context, s *sqlConn, from, to string) (*changes, error) {
	ch := &changes{From: from, To: to, Tables: []tableChange{}, Events: map[string]string{}}
	res, err := s.exec(ctx, "SELECT from_table_name, to_table_name, diff_type, data_change, schema_change FROM dolt_diff_summary("+lit(from)+", "+lit(to)+")")
	if err != nil {
		return nil, err
	}
	byName := map[string]int{}
	for _, row := range res.Rows {
		tc := tableChange{From: text(row[0]), To: text(row[1]), DiffType: text(row[2]), DataChange: text(row[3]) == "1", SchemaChange: text(row[4]) == "1"}
		byName[tc.To+"\x00"+tc.From] = len(ch.Tables)
		ch.Tables = append(ch.Tables, tc)
	}
	if len(ch.Tables) > 0 {
		res, err = s.exec(ctx, "SELECT table_name, rows_added, rows_deleted, rows_modified FROM dolt_diff_stat("+lit(from)+", "+lit(to)+")")
		if err != nil {
			return nil, err
		}
		for _, row := range res.Rows {
			for i := range ch.Tables {
				t := &ch.Tables[i]
				if name := text(row[0]); name == t.To || t.To == "" && name == t.From {
					t.Added, t.Deleted, t.Modified = text(row[1]), text(row[2]), text(row[3])
				}
			}
		}
		res, err = s.exec(ctx, "SELECT from_table_name, to_table_name, from_create_statement, to_create_statement FROM dolt_schema_diff("+lit(from)+", "+lit(to)+")")
		if err != nil {
			return nil, err
		}
		for _, row := range res.Rows {
			if i, ok := byName[text(row[1])+"\x00"+text(row[0])]; ok {
				ch.Tables[i].FromSchema, ch.Tables[i].ToSchema = text(row[2]), text(row[3])
			}
		}
	}
	res, err = s.exec(ctx, "SELECT diff_type, COUNT(*) FROM dolt_diff("+lit(from)+", "+lit(to)+", 'dolt_events') GROUP BY diff_type")
	if err != nil {
		return nil, err
	}
	for _, row := range res.Rows {
		ch.Events[text(row[0])] = text(row[1])
	}
	return ch, nil
}

// apiCommit gives a commit's metadata and its changes against each
// parent.
func (c *Console) apiCommit(w http.ResponseWriter, r *http.Request, ws *webSession) {
	rev := r.PathValue("rev")
	c.serve(w, r, ws, r.PathValue("db"), "", func(ctx context.Context, s *sqlConn) (any, error) {
		if err := checkRevision(rev); err != nil {
			return nil, err
		}
		res, err := s.query(ctx, "SELECT "+logColumns+", author, author_email, author_date FROM dolt_log("+lit(rev)+", '--parents')", 0, 1)
		if err != nil {
			return nil, err
		}
		if len(res.Rows) == 0 {
			return nil, badRequest{"no commit " + rev}
		}
		row := res.Rows[0]
		head, err := s.exec(ctx, "SELECT hashof('HEAD')")
		if err != nil {
			return nil, err
		}
		// dolt_log of one revision calls it HEAD; the page says HEAD
		// only of the branch a session starts on.
		refs := strings.TrimPrefix(text(row[6]), "HEAD -> ")
		commit := map[string]any{"hash": text(row[0]), "parents": splitParents(text(row[1])), "committer": text(row[2]), "email": text(row[3]),
			"date": text(row[4]), "message": text(row[5]), "refs": refs, "head": text(head.Rows[0][0]) == text(row[0]),
			"author": text(row[7]), "author_email": text(row[8]), "author_date": text(row[9])}
		diffs := []*changes{}
		for _, p := range commit["parents"].([]string) {
			ch, err := diffOf(ctx, s, p, text(row[0]))
			if err != nil {
				return nil, err
			}
			diffs = append(diffs, ch)
		}
		commit["diffs"] = diffs
		return commit, nil
	})
}

// apiCompare gives the changes between any two revisions.
func (c *Console) apiCompare(w http.ResponseWriter, r *http.Request, ws *webSession) {
	from, to := r.URL.Query().Get("from"), r.URL.Query().Get("to")
	c.serve(w, r, ws, r.PathValue("db"), "", func(ctx context.Context, s *sqlConn) (any, error) {
		if from == "" || to == "" {
			return nil, badRequest{"give from and to: two revisions"}
		}
		if err := checkRevision(from); err != nil {
			return nil, err
		}
		if err := checkRevision(to); err != nil {
			return nil, err
		}
		return diffOf(ctx, s, from, to)
	})
}

// apiDiff pages through the rows of one table's diff between two
// revisions (dolt_diff(from, to, table)); the table dolt_events gives the
// events added and removed.
func (c *Console) apiDiff(w http.ResponseWriter, r *http.Request, ws *webSession) {
	qv := r.URL.Query()
	from, to, table := qv.Get("from"), qv.Get("to"), qv.Get("table")
	offset, limit, err := pageParams(r)
	if err != nil {
		c.writeErr(w, err)
		return
	}
	c.serve(w, r, ws, r.PathValue("db"), "", func(ctx context.Context, s *sqlConn) (any, error) {
		if from == "" || to == "" || table == "" {
			return nil, badRequest{"give from, to and table"}
		}
		if err := checkRevision(from); err != nil {
			return nil, err
		}
		if err := checkRevision(to); err != nil {
			return nil, err
		}
		res, err := s.query(ctx, "SELECT * FROM dolt_diff("+lit(from)+", "+lit(to)+", "+lit(table)+")", offset, limit)
		if err != nil {
			return nil, err
		}
		return map[string]any{"columns": res.Columns, "rows": res.Rows, "more": res.More, "offset": offset}, nil
	})
}

// apiEventStats gives the Stats page's figures: dolt_event_stats (the
// whole log, each category, each event type and each pair) and the count
// of streams.
func (c *Console) apiEventStats(w http.ResponseWriter, r *http.Request, ws *webSession) {
	c.serve(w, r, ws, r.PathValue("db"), r.URL.Query().Get("rev"), func(ctx context.Context, s *sqlConn) (any, error) {
		res, err := s.exec(ctx, "SELECT category, event_type, event_count, first_position, last_position, first_created, last_created FROM dolt_event_stats")
		if err != nil {
			return nil, err
		}
		streams, err := s.exec(ctx, "SELECT COUNT(*) FROM dolt_streams")
		if err != nil {
			return nil, err
		}
		return map[string]any{"columns": res.Columns, "rows": res.Rows, "streams": text(streams.Rows[0][0])}, nil
	})
}

// apiStreams pages through the streams of a category (every stream
// without one), with their retention settings.
func (c *Console) apiStreams(w http.ResponseWriter, r *http.Request, ws *webSession) {
	offset, limit, err := pageParams(r)
	if err != nil {
		c.writeErr(w, err)
		return
	}
	category := r.URL.Query().Get("category")
	c.serve(w, r, ws, r.PathValue("db"), r.URL.Query().Get("rev"), func(ctx context.Context, s *sqlConn) (any, error) {
		q := "SELECT * FROM dolt_streams"
		if category != "" {
			q += " WHERE category = " + lit(category)
		}
		res, err := s.query(ctx, q, offset, limit)
		if err != nil {
			return nil, err
		}
		return map[string]any{"columns": res.Columns, "rows": res.Rows, "more": res.More, "offset": offset}, nil
	})
}

// apiReadEvents reads a page of a stream, of $all, or of a
// $idx-ce-<category> or $idx-et-<type> index, from a position (an event
// number for a stream); next is where the following page starts.
func (c *Console) apiReadEvents(w http.ResponseWriter, r *http.Request, ws *webSession) {
	stream := r.URL.Query().Get("stream")
	from, err := intParam(r, "from", 0, 1<<62)
	if err != nil {
		c.writeErr(w, err)
		return
	}
	limit, err := intParam(r, "limit", defaultRowPage, maxEventPage)
	if err != nil {
		c.writeErr(w, err)
		return
	}
	limit = max(limit, 1)
	c.serve(w, r, ws, r.PathValue("db"), r.URL.Query().Get("rev"), func(ctx context.Context, s *sqlConn) (any, error) {
		if stream == "" {
			return nil, badRequest{"give stream: a stream id, $all, $idx-ce-<category> or $idx-et-<event type>"}
		}
		fn, cursor := "dolt_read_stream", 2 // the event number's column
		if stream == "$all" || strings.HasPrefix(stream, "$idx-") || strings.HasPrefix(stream, "$ce-") || strings.HasPrefix(stream, "$et-") {
			fn, cursor = "dolt_read_all", 0 // the position's
		}
		res, err := s.query(ctx, "SELECT * FROM "+fn+"("+lit(stream)+", "+strconv.Itoa(from)+", "+strconv.Itoa(limit+1)+")", 0, limit)
		if err != nil {
			return nil, err
		}
		next := ""
		if res.More && len(res.Rows) > 0 {
			n, _ := strconv.ParseUint(text(res.Rows[len(res.Rows)-1][cursor]), 10, 64)
			next = strconv.FormatUint(n+1, 10)
		}
		return map[string]any{"columns": res.Columns, "rows": res.Rows, "next": next}, nil
	})
}

// queryRequest is the body of the query box's POST.
type queryRequest struct {
	SQL    string `json:"sql"`
	Rev    string `json:"rev"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
	// Write says the user confirmed that the statement may change the
	// database; without it only reads run.
	Write bool `json:"write"`
}

// apiQuery runs one statement of the query box at a revision: a read in
// a READ ONLY transaction, a write only when the user confirmed it (and
// the account's grants allow it, as for any client).
func (c *Console) apiQuery(w http.ResponseWriter, r *http.Request, ws *webSession) {
	var q queryRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&q); err != nil {
		c.writeErr(w, badRequest{"the body must be JSON: {\"sql\": ..., \"rev\": ..., \"offset\": n, \"limit\": n, \"write\": false}"})
		return
	}
	if q.Limit <= 0 {
		q.Limit = defaultRowPage
	}
	q.Limit = min(q.Limit, maxRowPage)
	if q.Offset < 0 || q.Offset >= MaxQueryRows {
		c.writeErr(w, badRequest{"offset must be 0 to " + strconv.Itoa(MaxQueryRows-1) + ": the query box shows at most " + strconv.Itoa(MaxQueryRows) + " rows of a statement"})
		return
	}
	q.Limit = min(q.Limit, MaxQueryRows-q.Offset)
	kind, err := classify(q.SQL)
	if err != nil {
		c.writeErr(w, err)
		return
	}
	if kind == writeStatement && !q.Write {
		writeJSON(w, map[string]any{"confirm": "This statement can change the database. Run it anyway?"})
		return
	}
	c.serve(w, r, ws, r.PathValue("db"), q.Rev, func(ctx context.Context, s *sqlConn) (any, error) {
		if kind == readStatement {
			if _, err := s.exec(ctx, "START TRANSACTION READ ONLY"); err != nil {
				return nil, err
			}
			defer s.exec(context.Background(), "ROLLBACK")
		}
		res, err := s.query(ctx, q.SQL, q.Offset, q.Limit)
		if err != nil {
			return nil, err
		}
		if q.Offset+len(res.Rows) >= MaxQueryRows {
			res.More = false
		}
		return map[string]any{"columns": res.Columns, "rows": res.Rows, "more": res.More, "offset": q.Offset, "affected": res.Affected}, nil
	})
}
