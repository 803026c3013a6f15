package sqlserver

import (
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// DELETE FROM a table of another database.
//
// The engine turns a DELETE of every row into a TRUNCATE when the table
// has no ON DELETE trigger, but it looks for the table and its triggers
// in the session's current database, whatever database the statement
// names: DELETE FROM shop.t without a current database failed with 1049
// "database not found: ''", and with another current database that has no
// trigger on a table of the same name, shop.t's ON DELETE triggers would
// have been skipped. crossDatabaseDelete keeps such a DELETE a DELETE
// (row by row, triggers and foreign keys included) by giving it the
// filter TRUE, which the conversion does not take.

// crossDatabaseDeleteRule is the id of crossDatabaseDelete among the
// analyzer's rules (past the engine's own ids, beside fastPathRule).
const crossDatabaseDeleteRule analyzer.RuleId = 100004

func crossDatabaseDelete(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	d, ok := n.(*plan.DeleteFrom)
	if !ok {
		return n, transform.SameTree, nil
	}
	rt, ok := d.Child.(*plan.ResolvedTable)
	if !ok || rt.SqlDatabase == nil || strings.EqualFold(rt.SqlDatabase.Name(), ctx.GetCurrentDatabase()) {
		return n, transform.SameTree, nil
	}
	nd, err := d.WithChildren(ctx, plan.NewFilter(ctx, expression.NewLiteral(true, types.Boolean), rt))
	if err != nil {
		return nil, transform.SameTree, err
	}
	return nd, transform.NewTree, nil
}

// rulesOnce guards registerAnalyzerRules.
var rulesOnce sync.Once

// registerAnalyzerRules adds crossDatabaseDelete to the engine's rules that
// run before every statement's analysis, simple DELETEs included
// (analyzer.AlwaysBeforeDefault, a process-wide list the engine keeps for
// integrators, copied by each analyzer built after), and captureCalls
// (callresults.go) to those that run once after all others
// (analyzer.OnceAfterAll): once per process, by the first provider made,
// before any engine.
func registerAnalyzerRules() {
	rulesOnce.Do(func() {
		analyzer.AlwaysBeforeDefault = append(analyzer.AlwaysBeforeDefault, analyzer.Rule{Id: crossDatabaseDeleteRule, Apply: crossDatabaseDelete})
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: captureCallsRule, Apply: captureCalls})
	})
}
