package sqlserver

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
)

// What an error may show a client.
//
// A client's error says what went wrong with its statement; it never
// carries a Go stack trace or an absolute path of the server's machine.
// Both reach clients from the engine: it turns a panic in the goroutines
// that run a query into an error whose message is "panic recovered: ..."
// and the stack trace, and errors of files name their paths. So, on the
// way to the client (ScrubError, called by the wire server's connection
// handler and by MySQLError):
//
//   - A panic, recovered by the engine or by the wire server's handler
//     (whose message has the engine's form, "panic recovered: ..."), becomes
//     1105 "internal error in the server: <the panic's first line>; the
//     server log has the details", and the whole message, stack trace
//     included, goes to the server's log with the statement.
//   - An absolute path in a message becomes relative to the data dir when
//     it lies in it ("shop/.verso/chunks/journal"), else ".../<its last
//     element>"; a path that the statement itself contains is the client's
//     own and stays.

// stackTrace matches messages that carry a Go stack trace.
var stackTrace = regexp.MustCompile(`(?m)panic recovered|^goroutine \d+ \[|runtime/debug\.Stack\(`)

// absPath matches an absolute path of at least two elements after a
// space, a quote, a bracket or a separator: "/var/lib/x", not "1/2",
// "a/b" or "/*+".
var absPath = regexp.MustCompile(`(^|[\s'"(\[=:,])((?:/[\w.@+~%-]+){2,}/?)`)

// scrub returns msg fit for a client of a statement query, and whether it
// hid a stack trace (msg should then go to the server's log). dataDir, if
// not "", is the server's data dir.
func scrub(msg, query, dataDir string) (string, bool) {
	trace := stackTrace.MatchString(msg)
	if trace {
		first, _, _ := strings.Cut(msg, "\n")
		first = strings.TrimPrefix(strings.TrimSpace(first), "panic recovered: ")
		msg = "internal error in the server: " + first + "; the server log has the details"
	}
	msg = absPath.ReplaceAllStringFunc(msg, func(m string) string {
		sub := absPath.FindStringSubmatch(m)
		lead, p := sub[1], sub[2]
		if strings.Contains(query, p) {
			return m
		}
		if dataDir != "" {
			if rel, err := filepath.Rel(dataDir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return lead + rel
			}
		}
		return lead + ".../" + filepath.Base(p)
	})
	return msg, trace
}

// ScrubError returns se fit for a client of the statement query (see
// above), and whether it hid a stack trace, which the caller should log
// with the whole message. dataDir, if not "", is the server's data dir:
// paths in it become relative to it. The wire server (package server)
// calls it on each error it sends; MySQLError calls it with no data dir.
func ScrubError(se *mysql.SQLError, query, dataDir string) (*mysql.SQLError, bool) {
	msg, trace := scrub(se.Message, query, dataDir)
	if msg == se.Message {
		return se, false
	}
	return &mysql.SQLError{Num: se.Num, State: se.State, Message: msg, Query: se.Query}, trace
}
