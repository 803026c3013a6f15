package sqlserver

import (
	"context"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/verso-db/verso"
)

// Which reads lock their rows (see rowlocks.go).
//
// The engine drops the locking clause of a SELECT when it builds the plan
// (FOR UPDATE is a no-op to it) and has no FOR SHARE in its grammar, so
// the clause is carried from the syntax tree to the tables another way:
// the engine's parser (lockingParser) marks each table of a locking
// SELECT's FROM that belongs to a verso database (all of them, or those
// named by FOR UPDATE OF) with an AS OF of a reserved value, lockMarker
// plus the clause; Database.GetTableInsensitiveAsOf recognizes it and
// returns the table with its reads locking, instead of a revision. A view
// so marked passes the marker to the tables of its definition, as AS OF
// does, so a locking read of a view locks the rows of its tables. FOR
// SHARE [OF ...] [NOWAIT | SKIP LOCKED], which the engine's grammar lacks,
// is read as LOCK IN SHARE MODE with the same options.
//
// The rows an UPDATE or DELETE changes are found by reads of the target
// tables. The engine plans simple UPDATEs and DELETEs without the
// analyzer's extension points, but asks the target table for its updater
// or deleter before it reads a row: while a statement holds one
// (editor.target), the transaction's reads of that table lock their rows
// exclusively (txDB.targets). That covers the targets of UPDATE, of a
// multi-table UPDATE and of DELETE, the statements of triggers, and
// foreign-key cascades; other reads of the same table in the statement (a
// subquery of it) lock too, as InnoDB's do. Tables only read (a join, a
// subquery, INSERT ... SELECT) are read from the snapshot.

// lockMarker begins the AS OF value that marks a locking read; no ref or
// time begins with a NUL byte.
const lockMarker = "\x00verso-lock:"

// clauseMarker returns the AS OF value of c.
func clauseMarker(c lockClause) string {
	b := []byte(lockMarker)
	b = append(b, byte('0'+c.mode), byte('0'+c.policy))
	return string(b)
}

// markedClause returns the clause an AS OF value marks, if it is a marker.
func markedClause(asOf any) (lockClause, bool) {
	s, ok := asOf.(string)
	if !ok || !strings.HasPrefix(s, lockMarker) || len(s) != len(lockMarker)+2 {
		return lockClause{}, false
	}
	c := lockClause{mode: verso.LockMode(s[len(lockMarker)] - '0'), policy: verso.LockPolicy(s[len(lockMarker)+1] - '0')}
	return c, true
}

// selectClause returns the lock clause of a SELECT's locking clause, if it
// has one.
func selectClause(l *sqlparser.Lock) (lockClause, bool) {
	if l == nil || l.Type == "" {
		return lockClause{}, false
	}
	t := strings.ToLower(l.Type)
	c := lockClause{mode: verso.LockExclusive, policy: verso.LockWait}
	if strings.Contains(t, "share") {
		c.mode = verso.LockShared
	}
	switch {
	case strings.HasSuffix(t, "nowait"):
		c.policy = verso.LockNoWait
	case strings.HasSuffix(t, "skip locked"):
		c.policy = verso.LockSkipLocked
	}
	return c, true
}

// lockingParser is the engine's parser: the MySQL parser, plus FOR SHARE,
// with the tables of locking reads marked (see above), and on a server the
// fast path's text queries injected (fastpath.go).
type lockingParser struct {
	sql.Parser
	p *Provider
	f *fastPath // nil: no fast path
}

var _ sql.Parser = lockingParser{}

func (lp lockingParser) Parse(ctx *sql.Context, query string, multi bool) (sqlparser.Statement, string, string, error) {
	stmt, parsed, rest, err := lp.Parser.Parse(ctx, query, multi)
	if err != nil && rest == "" {
		if s, ok := lp.forShare(ctx, query, func(q string) (sqlparser.Statement, error) {
			st, _, _, err := lp.Parser.Parse(ctx, q, false)
			return st, err
		}); ok {
			stmt, parsed, err = s, query, nil
		}
	}
	return lp.done(ctx, stmt, parsed, rest, err)
}

func (lp lockingParser) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options sqlparser.ParserOptions) (sqlparser.Statement, string, string, error) {
	stmt, parsed, rest, err := lp.Parser.ParseWithOptions(ctx, query, delimiter, multi, options)
	if err != nil && rest == "" {
		if s, ok := lp.forShare(ctx, query, func(q string) (sqlparser.Statement, error) {
			st, _, _, err := lp.Parser.ParseWithOptions(ctx, q, delimiter, false, options)
			return st, err
		}); ok {
			stmt, parsed, err = s, query, nil
		}
	}
	return lp.done(ctx, stmt, parsed, rest, err)
}

func (lp lockingParser) ParseOneWithOptions(ctx context.Context, query string, options sqlparser.ParserOptions) (sqlparser.Statement, int, error) {
	stmt, n, err := lp.Parser.ParseOneWithOptions(ctx, query, options)
	if err != nil {
		if s, ok := lp.forShare(ctx, query, func(q string) (sqlparser.Statement, error) {
			st, _, err := lp.Parser.ParseOneWithOptions(ctx, q, options)
			return st, err
		}); ok {
			stmt, n, err = s, len(query), nil
		}
	}
	if err == nil && mayLock(query) {
		lp.markLocks(ctx, stmt)
	}
	return stmt, n, err
}

// mayLock reports whether a query's text may hold a locking clause: FOR
// UPDATE, or SHARE (FOR SHARE, LOCK IN SHARE MODE). Walking every
// statement's syntax tree for them cost each statement two dozen
// allocations.
func mayLock(q string) bool {
	if indexFold(q, "share", 0) >= 0 {
		return true
	}
	for i := indexFold(q, "update", 0); i >= 0; i = indexFold(q, "update", i+1) {
		j := i
		for j > 0 && (q[j-1] == ' ' || q[j-1] == '\t' || q[j-1] == '\n' || q[j-1] == '\r') {
			j--
		}
		if j < i && j >= 3 && indexFold(q[j-3:j], "for", 0) == 0 {
			return true
		}
	}
	return false
}

// indexFold returns the index of the first lower-case ASCII word w in s
// from from on, in any case, or -1, without allocating.
func indexFold(s, w string, from int) int {
	for i := from; i+len(w) <= len(s); i++ {
		j := 0
		for ; j < len(w); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
		}
		if j == len(w) {
			return i
		}
	}
	return -1
}

// done marks a parsed statement's locking reads and gives text queries of
// the fast path's shapes to it.
func (lp lockingParser) done(ctx context.Context, stmt sqlparser.Statement, parsed, rest string, err error) (sqlparser.Statement, string, string, error) {
	if err != nil {
		return stmt, parsed, rest, err
	}
	if mayLock(parsed) {
		lp.markLocks(ctx, stmt)
	}
	if lp.f != nil {
		if inj := lp.f.injectText(parsed, stmt); inj != nil {
			stmt = inj
		}
	}
	return stmt, parsed, rest, nil
}

// forShareRE matches a trailing FOR SHARE clause.
var forShareRE = regexp.MustCompile(`(?is)\s+for\s+share(\s+of\s+([^;]*?))?(\s+(nowait|skip\s+locked))?\s*;?\s*$`)

// forShare parses a query ending in FOR SHARE [OF t, ...] [NOWAIT | SKIP
// LOCKED] as the SELECT before it with that locking clause.
func (lp lockingParser) forShare(ctx context.Context, query string, parse func(string) (sqlparser.Statement, error)) (sqlparser.Statement, bool) {
	m := forShareRE.FindStringSubmatchIndex(query)
	if m == nil {
		return nil, false
	}
	opt := ""
	if m[8] >= 0 {
		opt = " " + strings.Join(strings.Fields(strings.ToLower(query[m[8]:m[9]])), " ")
	}
	base := query[:m[0]]
	var of string
	if m[4] >= 0 {
		of = query[m[4]:m[5]]
		if strings.HasSuffix(strings.ToLower(strings.TrimSpace(of)), "nowait") || strings.Contains(strings.ToLower(of), "skip locked") {
			return nil, false
		}
	}
	// OF's names parse as FOR UPDATE OF's, whose clause is then replaced.
	q := base + " lock in share mode"
	if of != "" {
		q = base + " for update of " + of
	}
	stmt, err := parse(q)
	if err != nil {
		return nil, false
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.Lock == nil {
		return nil, false
	}
	sel.Lock = &sqlparser.Lock{Type: sqlparser.ShareModeStr + opt, Tables: sel.Lock.Tables}
	return sel, true
}

// markLocks marks the tables of the statement's locking SELECTs.
func (lp lockingParser) markLocks(ctx context.Context, stmt sqlparser.Statement) {
	if lp.p == nil || stmt == nil {
		return
	}
	current := ""
	if sctx, ok := ctx.(*sql.Context); ok {
		current = sctx.GetCurrentDatabase()
	}
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		sel, ok := node.(*sqlparser.Select)
		if !ok {
			return true, nil
		}
		c, ok := selectClause(sel.Lock)
		if !ok {
			return true, nil
		}
		for _, te := range sel.From {
			lp.markTableExpr(te, c, sel.Lock.Tables, current)
		}
		return true, nil
	}, stmt)
}

// markTableExpr marks the tables of a FROM item (joins followed, derived
// tables left to their own clause).
func (lp lockingParser) markTableExpr(te sqlparser.TableExpr, c lockClause, of sqlparser.TableNames, current string) {
	switch te := te.(type) {
	case *sqlparser.JoinTableExpr:
		lp.markTableExpr(te.LeftExpr, c, of, current)
		lp.markTableExpr(te.RightExpr, c, of, current)
	case *sqlparser.ParenTableExpr:
		for _, e := range te.Exprs {
			lp.markTableExpr(e, c, of, current)
		}
	case *sqlparser.AliasedTableExpr:
		tn, ok := te.Expr.(sqlparser.TableName)
		if !ok || te.AsOf != nil {
			return
		}
		if len(of) > 0 && !namedIn(of, tn, te.As) {
			return
		}
		db := tn.DbQualifier.String()
		if db == "" {
			db = current
		}
		if !lp.p.isVersoDatabase(db) {
			return
		}
		te.AsOf = &sqlparser.AsOf{Time: sqlparser.NewStrVal([]byte(clauseMarker(c)))}
	}
}

// namedIn reports whether FOR UPDATE OF's names include the table tn
// (aliased as).
func namedIn(of sqlparser.TableNames, tn sqlparser.TableName, as sqlparser.TableIdent) bool {
	for _, n := range of {
		name := n.Name.String()
		if !as.IsEmpty() {
			if strings.EqualFold(name, as.String()) {
				return true
			}
			continue
		}
		if strings.EqualFold(name, tn.Name.String()) {
			return true
		}
	}
	return false
}

// isVersoDatabase reports whether name (or name/revision) is one of p's
// databases.
func (p *Provider) isVersoDatabase(name string) bool {
	if name == "" {
		return false
	}
	base, _, _ := strings.Cut(name, "/")
	p.mu.RLock()
	defer p.mu.RUnlock()
	_, ok := p.dbs[strings.ToLower(base)]
	return ok
}
