package sqlserver

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest"
)

// The engine's prepared-statement suites: each query of the plain suites
// with its literals turned into placeholders, prepared and executed with
// bound values. Sessions have the server's fast path (fastpath.go), so
// the statements it takes run through it (the first execution of each, as
// here, through its fallback to the engine's planning); the others run as
// on any session.

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
