// Package web is verso's web console: pages served by the SQL server
// (`verso sql-server --http 127.0.0.1:8080`) that show a database's
// history as a graph, a commit's diff against each parent, the diff of any
// two revisions, the event log's Stats page (counts of streams,
// categories and event types, and a category × event type matrix), the
// streams of a category with their retention rules, a stream or an index
// read page by page, and a query box.
//
// # Main types
//
//   - Console (console.go): New listens beside a server.Server; Serve
//     serves until Close. The page, its script and its stylesheet are
//     compiled into the binary (assets/, with embed): nothing is loaded
//     from elsewhere, and the console works offline.
//
// # Accounts and security
//
// The console has the SQL port's accounts (auth.go, login.go): a login
// form, a session cookie (HttpOnly, SameSite=Strict), a CSRF token that
// every POST must carry, and an Origin check. Every page and API reads
// through a session of the server's engine as the logged-in account
// (sqlrun.go), with the system tables and table functions any client has,
// so what the account's grants hide from SQL the console does not show.
// With a passwordless superuser the console, like the SQL port, listens
// only on loopback (ErrNoPassword). Answers carry a strict
// Content-Security-Policy (scripts and styles of the console only) and
// refuse framing.
//
// # The API
//
// JSON over GET (api.go), under /api/db/<db>/: refs, log (the graph's
// commits, a page at a time, with a cursor), search, commit/<rev>,
// compare, diff (a table's rows, paged), events/stats, events/streams,
// events/read. POST /api/db/<db>/query runs one statement of the query
// box: a read (classify.go: SELECT, SHOW, DESCRIBE, EXPLAIN without INTO)
// in a READ ONLY transaction; a write only when the request says the user
// confirmed it, as the account's grants allow.
//
// # Caveats
//
//   - Sessions live in memory: a restart of the server logs everyone out.
//   - The console speaks plain HTTP unless Config.TLS is set; on an
//     address other than loopback, give it TLS or put it behind a proxy
//     that does. Accounts that REQUIRE X509 cannot log in (the console
//     asks for no client certificate), nor accounts that REQUIRE SSL
//     over plain HTTP.
//   - The query box shows at most MaxQueryRows rows of a statement; each
//     page runs the statement again.
package web
