package web

import (
	"context"
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// statementKind is what the query box makes of a statement.
type statementKind int

const (
	// readStatement: a SELECT, SHOW, DESCRIBE or EXPLAIN that writes no
	// file; it runs in a READ ONLY transaction, so that a function that
	// would write fails too.
	readStatement statementKind = iota
	// writeStatement: anything else; it runs only when the user
	// confirms it, as the account's grants allow.
	writeStatement
)

// classify parses the query box's text: exactly one statement, and of
// which kind. A syntax error is the server's 1064.
func classify(text string) (statementKind, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, badRequest{"type a statement to run"}
	}
	stmt, next, err := ast.ParseOne(context.Background(), text)
	if err != nil {
		return 0, sqlError(err, text)
	}
	if rest := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(text[min(next, len(text)):]), ";")); rest != "" {
		return 0, badRequest{"the query box runs one statement at a time; run the next one after this one"}
	}
	if isRead(stmt) {
		return readStatement, nil
	}
	return writeStatement, nil
}

// isRead reports whether stmt only reads.
func isRead(stmt ast.Statement) bool {
	switch s := stmt.(type) {
	case *ast.Select:
		return s.Into == nil
	case *ast.SetOp:
		return s.Into == nil && isRead(s.Left) && isRead(s.Right)
	case *ast.ParenSelect:
		return isRead(s.Select)
	case *ast.Show:
		return true
	case *ast.Explain:
		return isRead(s.Statement)
	}
	return false
}
