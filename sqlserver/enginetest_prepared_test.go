package sqlserver

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
)

// The engine's prepared-statement suites: each query of the plain suites
// with its literals turned into placeholders, prepared and executed with
// bound values, on a server's engine and sessions (fastpath.go): the
// statements of the fast path's shapes run through it, the others as on
// any engine. (Few of the suites' queries have those shapes; the fast
// path's own tests, fastpath_test.go, compare it with the engine
// thoroughly.)

func preparedHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.withFast = true
	return h
}

func TestEngineQueriesPrepared(t *testing.T) {
	enginetest.TestQueriesPrepared(t, preparedHarness(t))
}

func TestEngineJoinQueriesPrepared(t *testing.T) {
	enginetest.TestJoinQueriesPrepared(t, preparedHarness(t))
}

func TestEngineScriptsPrepared(t *testing.T) {
	enginetest.TestScriptsPrepared(t, preparedHarness(t))
}

func TestEngineInsertQueriesPrepared(t *testing.T) {
	enginetest.TestInsertQueriesPrepared(t, preparedHarness(t))
}

func TestEngineUpdateQueriesPrepared(t *testing.T) {
	enginetest.TestUpdateQueriesPrepared(t, preparedHarness(t))
}

func TestEngineDeleteQueriesPrepared(t *testing.T) {
	enginetest.TestDeleteQueriesPrepared(t, preparedHarness(t))
}

func TestEngineReplaceQueriesPrepared(t *testing.T) {
	enginetest.TestReplaceQueriesPrepared(t, preparedHarness(t))
}

// Two plain suites on a server's engine, whose parser gives text queries
// of the fast path's shapes (`SELECT i FROM mytable WHERE i = 2`) to it.

func TestEngineQueriesFastPath(t *testing.T) {
	enginetest.TestQueries(t, preparedHarness(t))
}

func TestEngineScriptsFastPath(t *testing.T) {
	enginetest.TestScripts(t, preparedHarness(t))
}
