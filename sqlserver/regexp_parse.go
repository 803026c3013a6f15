//go:build cgo && !gms_pure_go

package sqlserver

import (
	"context"
	"reflect"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// regexpParser is a parser that rewrites the REGEXP operators of what it
// parses into calls of REGEXP_LIKE: x REGEXP p becomes regexp_like(x, p),
// x NOT REGEXP p becomes NOT regexp_like(x, p).
type regexpParser struct {
	sql.Parser
}

// withRegexpParser returns p rewriting REGEXP operators.
func withRegexpParser(p sql.Parser) sql.Parser { return regexpParser{p} }

func (p regexpParser) ParseSimple(query string) (sqlparser.Statement, error) {
	stmt, err := p.Parser.ParseSimple(query)
	return rewriteRegexps(query, stmt), err
}

func (p regexpParser) Parse(ctx *sql.Context, query string, multi bool) (sqlparser.Statement, string, string, error) {
	stmt, parsed, rest, err := p.Parser.Parse(ctx, query, multi)
	return rewriteRegexps(parsed, stmt), parsed, rest, err
}

func (p regexpParser) ParseWithOptions(ctx context.Context, query string, delimiter rune, multi bool, options sqlparser.ParserOptions) (sqlparser.Statement, string, string, error) {
	stmt, parsed, rest, err := p.Parser.ParseWithOptions(ctx, query, delimiter, multi, options)
	return rewriteRegexps(parsed, stmt), parsed, rest, err
}

func (p regexpParser) ParseOneWithOptions(ctx context.Context, query string, options sqlparser.ParserOptions) (sqlparser.Statement, int, error) {
	stmt, n, err := p.Parser.ParseOneWithOptions(ctx, query, options)
	return rewriteRegexps(query, stmt), n, err
}

// rewriteRegexps rewrites the REGEXP operators of stmt, parsed from
// query, in place, and returns it. Statements whose text names neither
// REGEXP nor RLIKE have none and are left alone.
func rewriteRegexps(query string, stmt sqlparser.Statement) sqlparser.Statement {
	if stmt == nil || !mentionsRegexp(query) {
		return stmt
	}
	rewriteValue(reflect.ValueOf(stmt), 0)
	return stmt
}

// mentionsRegexp reports whether q holds "regexp" or "rlike", in any
// case.
func mentionsRegexp(q string) bool {
	for i := range len(q) {
		if q[i]|0x20 == 'r' && (hasFoldPrefix(q[i:], "regexp") || hasFoldPrefix(q[i:], "rlike")) {
			return true
		}
	}
	return false
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

var (
	exprType       = reflect.TypeFor[sqlparser.Expr]()
	comparisonType = reflect.TypeFor[*sqlparser.ComparisonExpr]()
)

// maxRewriteDepth bounds rewriteValue's descent (a parse tree is far
// shallower).
const maxRewriteDepth = 10000

// rewriteValue replaces, below v, each Expr holding a REGEXP comparison
// by its function form. It follows exported fields, pointers, interfaces
// and slices.
func rewriteValue(v reflect.Value, depth int) {
	if depth > maxRewriteDepth {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if v.Kind() == reflect.Interface && e.Type() == comparisonType && v.Type() == exprType && v.CanSet() {
			rewriteValue(e, depth+1) // the operands first
			if f := regexpCall(e.Interface().(*sqlparser.ComparisonExpr)); f != nil {
				v.Set(reflect.ValueOf(f))
			}
			return
		}
		rewriteValue(e, depth+1)
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				rewriteValue(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			rewriteValue(v.Index(i), depth+1)
		}
	}
}

// regexpCall returns the REGEXP_LIKE form of c, or nil if c is another
// comparison.
func regexpCall(c *sqlparser.ComparisonExpr) sqlparser.Expr {
	var not bool
	switch strings.ToLower(c.Operator) {
	case sqlparser.RegexpStr:
	case sqlparser.NotRegexpStr:
		not = true
	default:
		return nil
	}
	f := &sqlparser.FuncExpr{Name: sqlparser.NewColIdent("regexp_like"),
		Exprs: sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: c.Left}, &sqlparser.AliasedExpr{Expr: c.Right}}}
	if not {
		return &sqlparser.NotExpr{Expr: f}
	}
	return f
}
