package sqlserver

import (
	"testing"

	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Script tests of the system tables of schema objects (dolt_schemas,
// dolt_procedures), scheduled events, and the stored system tables
// (dolt_docs, dolt_tests, dolt_query_catalog).

var objectTableScripts = []queries.ScriptTest{
	{
		Name: "dolt_schemas and dolt_procedures show the objects, read-only, as Dolt's tables",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY, v INT)",
			"CALL dolt_commit('-Am', 'table')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT COUNT(*) FROM dolt_schemas", Expected: []sql.Row{{int64(0)}}},
			{Query: "CREATE VIEW v1 AS SELECT pk FROM t", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "CREATE TRIGGER tr1 BEFORE INSERT ON t FOR EACH ROW SET NEW.v = NEW.v * 2", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY STARTS '2030-01-01 00:00:00' DO INSERT INTO t VALUES (99, 99)", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "CREATE PROCEDURE p1(x INT) SELECT x + 1", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "SELECT type, name, fragment, JSON_KEYS(extra) FROM dolt_schemas ORDER BY type, name", Expected: []sql.Row{
				{"event", "e1", "CREATE DEFINER = `root`@`localhost` EVENT `e1` ON SCHEDULE EVERY 1 DAY STARTS '2030-01-01 00:00:00' ON COMPLETION NOT PRESERVE ENABLE DO INSERT INTO t VALUES (99, 99)", types.MustJSON(`["CreatedAt"]`)},
				{"trigger", "tr1", "CREATE TRIGGER tr1 BEFORE INSERT ON t FOR EACH ROW SET NEW.v = NEW.v * 2", types.MustJSON(`["CreatedAt"]`)},
				{"view", "v1", "CREATE VIEW v1 AS SELECT pk FROM t", types.MustJSON(`["CreatedAt"]`)},
			}},
			{Query: "SELECT name, create_stmt, created_at = modified_at FROM dolt_procedures", Expected: []sql.Row{{"p1", "CREATE PROCEDURE p1(x INT) SELECT x + 1", true}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status ORDER BY table_name", Expected: []sql.Row{{"dolt_procedures", false, "new table"}, {"dolt_schemas", false, "new table"}}},
			{Query: "INSERT INTO dolt_schemas VALUES ('view', 'vx', 'SELECT 1', NULL, NULL)", ExpectedErrStr: "table doesn't support INSERT INTO"},
			{Query: "DELETE FROM dolt_procedures", ExpectedErrStr: "table doesn't support DELETE FROM"},
			{Query: "CALL dolt_commit('-Am', 'objects')", SkipResultsCheck: true},
			{Query: "SELECT table_name, data_change, schema_change FROM dolt_diff WHERE message = 'objects' ORDER BY table_name", Expected: []sql.Row{{"dolt_procedures", int64(1), int64(1)}, {"dolt_schemas", int64(1), int64(1)}}},
			{Query: "DROP PROCEDURE p1", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "DROP EVENT e1", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "SELECT to_name, from_name, diff_type FROM dolt_diff_dolt_schemas WHERE to_commit = 'WORKING'", Expected: []sql.Row{{nil, "e1", "removed"}}},
			{Query: "SELECT to_name, from_name, diff_type FROM dolt_diff_dolt_procedures", ExpectedErr: sql.ErrTableNotFound},
			{Query: "SELECT type, name FROM dolt_history_dolt_schemas ORDER BY type, name", Expected: []sql.Row{{"event", "e1"}, {"trigger", "tr1"}, {"view", "v1"}}},
			{Query: "CALL dolt_commit('-am', 'drops')", SkipResultsCheck: true},
			{Query: "SELECT table_name, data_change, schema_change FROM dolt_diff WHERE message = 'drops' ORDER BY table_name", Expected: []sql.Row{{"dolt_procedures", int64(1), int64(1)}, {"dolt_schemas", int64(1), int64(0)}}},
			{Query: "SELECT type, name FROM dolt_schemas AS OF 'HEAD~2'", Expected: []sql.Row{}},
			{Query: "SELECT name FROM dolt_procedures AS OF 'HEAD~1'", Expected: []sql.Row{{"p1"}}},
			{Query: "CALL dolt_reset('--hard', 'HEAD~1')", SkipResultsCheck: true},
			{Query: "CALL p1(41)", Expected: []sql.Row{{int64(42)}}},
			{Query: "SELECT event_name FROM information_schema.events", Expected: []sql.Row{{"e1"}}},
		},
	},
	{
		Name: "scheduled events are stored, renamed and dropped with the database",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CREATE EVENT e1 ON SCHEDULE AT '2037-01-01 00:00:00' ON COMPLETION PRESERVE DISABLE COMMENT 'later' DO INSERT INTO t VALUES (1)",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT event_name, status, event_comment, on_completion FROM information_schema.events", Expected: []sql.Row{{"e1", "DISABLED", "later", "PRESERVE"}}},
			{Query: "CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY DO SELECT 1", ExpectedErrStr: "Event 'e1' already exists"},
			{Query: "ALTER EVENT e1 RENAME TO e2", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "SELECT name FROM dolt_schemas", Expected: []sql.Row{{"e2"}}},
			{Query: "DROP EVENT e1", ExpectedErrStr: "Event 'e1' does not exist"},
			{Query: "DROP EVENT e2", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "SELECT COUNT(*) FROM dolt_schemas", Expected: []sql.Row{{int64(0)}}},
		},
	},
}

func TestObjectTables(t *testing.T) { runVersioningScripts(t, objectTableScripts) }

var storedSystemTableScripts = []queries.ScriptTest{
	{
		Name: "dolt_docs: a built-in AGENT.md until one is stored, made by the first write, hidden from SHOW TABLES",
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT doc_name, LEFT(doc_text, 43) FROM dolt_docs", Expected: []sql.Row{{"AGENT.md", "# AGENT.md - Dolt Database Operations Guide"}}},
			{Query: "SELECT COUNT(*) FROM dolt_status", Expected: []sql.Row{{int64(0)}}},
			{Query: "DELETE FROM dolt_docs", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT COUNT(*) FROM dolt_status", Expected: []sql.Row{{int64(0)}}},
			{Query: "INSERT INTO dolt_docs VALUES ('README.md', '# hello')", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT table_name, status FROM dolt_status", Expected: []sql.Row{{"dolt_docs", "new table"}}},
			{Query: "SHOW TABLES", Expected: []sql.Row{}},
			{Query: "INSERT INTO dolt_docs VALUES ('AGENT.md', 'mine'), ('z.md', 'z')", Expected: []sql.Row{{types.NewOkResult(2)}}},
			{Query: "SELECT doc_name, doc_text FROM dolt_docs ORDER BY doc_name", Expected: []sql.Row{{"AGENT.md", "mine"}, {"README.md", "# hello"}, {"z.md", "z"}}},
			{Query: "DELETE FROM dolt_docs WHERE doc_name = 'AGENT.md'", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT doc_name, LEFT(doc_text, 10) FROM dolt_docs ORDER BY doc_name", Expected: []sql.Row{{"AGENT.md", "# AGENT.md"}, {"README.md", "# hello"}, {"z.md", "z"}}},
			{Query: "UPDATE dolt_docs SET doc_text = 'edited' WHERE doc_name = 'AGENT.md'", Expected: []sql.Row{{types.OkResult{RowsAffected: 1, Info: plan.UpdateInfo{Matched: 1, Updated: 1}}}}},
			{Query: "SELECT doc_text FROM dolt_docs WHERE doc_name = 'AGENT.md'", Expected: []sql.Row{{"edited"}}},
			{Query: "INSERT INTO dolt_docs VALUES ('README.md', 'again')", ExpectedErrStr: "duplicate primary key given: [README.md]"},
			{Query: "CALL dolt_commit('-Am', 'docs')", SkipResultsCheck: true},
			{Query: "DELETE FROM dolt_docs WHERE doc_name = 'AGENT.md'", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT doc_name FROM dolt_docs AS OF 'HEAD' ORDER BY doc_name", Expected: []sql.Row{{"AGENT.md"}, {"README.md"}, {"z.md"}}},
			{Query: "CALL dolt_commit('-am', 'no agent')", SkipResultsCheck: true},
			{Query: "SELECT doc_name FROM dolt_docs AS OF 'HEAD' ORDER BY doc_name", Expected: []sql.Row{{"README.md"}, {"z.md"}}},
			{Query: "REPLACE INTO dolt_docs VALUES ('AGENT.md', 'r1')", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "REPLACE INTO dolt_docs VALUES ('AGENT.md', 'r2')", Expected: []sql.Row{{types.NewOkResult(2)}}},
			{Query: "SELECT doc_text FROM dolt_docs WHERE doc_name = 'AGENT.md'", Expected: []sql.Row{{"r2"}}},
		},
	},
	{
		Name: "REPLACE into a stored system table not made yet",
		Assertions: []queries.ScriptTestAssertion{
			{Query: "REPLACE INTO dolt_ignore VALUES ('a%', 1)", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "REPLACE INTO dolt_docs VALUES ('AGENT.md', 'mine')", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT doc_text FROM dolt_docs", Expected: []sql.Row{{"mine"}}},
			{Query: "SELECT pattern, ignored FROM dolt_ignore", Expected: []sql.Row{{"a%", int8(1)}}},
		},
	},
	{
		Name: "dolt_tests and dolt_test_run",
		SetUpScript: []string{
			"CREATE TABLE t (a INT PRIMARY KEY)",
			"INSERT INTO t VALUES (1), (2)",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT * FROM dolt_test_run()", Expected: []sql.Row{}},
			{Query: "INSERT INTO dolt_tests VALUES ('x', 'g', 'SELECT 1', 'bogus', '==', '1')", ExpectedErrStr: "Check constraint \"assertion_type_check\" violated"},
			{Query: "SELECT COUNT(*) FROM dolt_status", Expected: []sql.Row{{int64(1)}}},
			{Query: `INSERT INTO dolt_tests VALUES
				('t1', 'g', 'SELECT COUNT(*) FROM t', 'expected_single_value', '==', '2'),
				('t2', 'g', 'SELECT * FROM t', 'expected_rows', '>', '5'),
				('t3', 'h', 'SELECT * FROM t', 'expected_columns', '==', '2'),
				('t4', NULL, 'SELECT a FROM t', 'expected_single_value', '==', '1'),
				('t5', 'h', 'SELECT nope', 'expected_rows', '==', '0'),
				('t6', 'h', 'INSERT INTO t VALUES (9)', 'expected_rows', '==', '0'),
				('t7', 'h', 'SELECT 5', 'expected_rows', '==', 'abc'),
				('t8', 'h', 'SELECT 1.5', 'expected_single_value', '>=', '1.25'),
				('t9', 'h', 'SELECT NULL', 'expected_single_value', '==', NULL),
				('u1', 'h', 'SELECT 1; SELECT 2', 'expected_rows', '==', '1'),
				('u2', 'h', 'SELECT 3', 'expected_single_value', '<', '3.5'),
				('u3', 'h', 'SELECT CAST(''2020-01-01'' AS DATE)', 'expected_single_value', '<', 'x'),
				('u4', 'h', 'SELECT TRUE', 'expected_single_value', '==', '1')`, Expected: []sql.Row{{types.NewOkResult(13)}}},
			{Query: "SELECT test_name, test_group_name, status, message FROM dolt_test_run()", Expected: []sql.Row{
				{"t1", "g", "PASS", ""},
				{"t2", "g", "FAIL", "Assertion failed: expected_rows greater than 5, got 2"},
				{"t3", "h", "FAIL", "Assertion failed: expected_columns equal to 2, got 1"},
				{"t4", "", "FAIL", "expected_single_value expects exactly one cell. Received multiple rows"},
				{"t5", "h", "FAIL", "query error: column \"nope\" could not be found in any table in scope"},
				{"t6", "h", "FAIL", "Cannot execute write queries"},
				{"t7", "h", "FAIL", "cannot run assertion on non integer value: abc"},
				{"t8", "h", "PASS", ""},
				{"t9", "h", "PASS", ""},
				{"u1", "h", "FAIL", "Can only run exactly one query"},
				{"u2", "h", "FAIL", "Could not compare non integer value '3.5', with 3"},
				{"u3", "h", "FAIL", "x does not appear to be a valid date"},
				{"u4", "h", "PASS", ""},
			}},
			{Query: "SELECT test_name FROM dolt_test_run('g', 't1')", Expected: []sql.Row{{"t1"}, {"t2"}, {"t1"}}},
			{Query: "SELECT COUNT(*) FROM dolt_test_run('*')", Expected: []sql.Row{{int64(13)}}},
			{Query: "SELECT * FROM dolt_test_run('nope')", ExpectedErrStr: "could not find tests for argument: nope"},
			{Query: "SELECT COUNT(*) FROM t", Expected: []sql.Row{{int64(2)}}},
			{Query: "INSERT INTO dolt_query_catalog VALUES ('q1', 1, 'name', 'SELECT 1', 'desc')", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT table_name FROM dolt_status ORDER BY table_name", Expected: []sql.Row{{"dolt_query_catalog"}, {"dolt_tests"}, {"t"}}},
		},
	},
	{
		Name: "the tables of features verso lacks: empty or true, with Dolt's columns, writes refused",
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT COUNT(*) FROM dolt_help WHERE type = 'procedure'", Expected: []sql.Row{{int64(21)}}},
			{Query: "SELECT synopsis FROM dolt_help WHERE name = 'dolt_add'", Expected: []sql.Row{{"dolt add [<table>...]"}}},
			{Query: "SELECT * FROM dolt_backups", Expected: []sql.Row{}},
			{Query: "INSERT INTO dolt_backups VALUES ('b', 'file:///x', '{}')", ExpectedErrStr: "table doesn't support INSERT INTO"},
			{Query: "SELECT `database`, branch, user, host, permissions FROM dolt_branch_control", Expected: []sql.Row{{"%", "%", "%", "%", "write"}}},
			{Query: "INSERT INTO dolt_branch_control VALUES ('test', 'b', 'root', '%', 'admin')", ExpectedErrStr: errNoBranchPermissionsText},
			{Query: "DELETE FROM dolt_branch_control", ExpectedErrStr: errNoBranchPermissionsText},
			{Query: "SELECT * FROM dolt_branch_namespace_control", Expected: []sql.Row{}},
			{Query: "SELECT * FROM dolt_nonlocal_tables", Expected: []sql.Row{}},
			{Query: "INSERT INTO dolt_nonlocal_tables VALUES ('t', 'main', 't', '')", ExpectedErrStr: "verso has no nonlocal tables: dolt_nonlocal_tables cannot be changed"},
			{Query: "SELECT * FROM dolt_branch_activity", ExpectedErrStr: "branch activity tracking is not enabled; enable it in the server config with 'behavior.branch_activity_tracking: true'"},
			{Query: "INSERT INTO dolt_help VALUES ('x', 'procedure', '', '', '', '{}')", ExpectedErrStr: "table doesn't support INSERT INTO"},
		},
	},
}

const errNoBranchPermissionsText = "verso has no branch permissions: every user may write every branch, and dolt_branch_control and dolt_branch_namespace_control cannot be changed"

func TestStoredSystemTables(t *testing.T) { runVersioningScripts(t, storedSystemTableScripts) }

var workspaceScripts = []queries.ScriptTest{
	{
		Name: "dolt_workspace_<t>: stage, unstage and undo rows",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY, v VARCHAR(10))",
			"INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
			"CALL dolt_commit('-Am', 'first')",
			"UPDATE t SET v = 'bb' WHERE pk = 2",
			"INSERT INTO t VALUES (4, 'd')",
			"DELETE FROM t WHERE pk = 1",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT id, staged, diff_type, to_pk, from_pk FROM dolt_workspace_t", Expected: []sql.Row{
				{uint64(0), false, "removed", nil, int32(1)}, {uint64(1), false, "modified", int32(2), int32(2)}, {uint64(2), false, "added", int32(4), nil}}},
			{Query: "UPDATE dolt_workspace_t SET staged = 1 WHERE to_pk = 4", Expected: []sql.Row{{types.OkResult{RowsAffected: 1, Info: plan.UpdateInfo{Matched: 1, Updated: 1}}}}},
			{Query: "SELECT to_pk, diff_type FROM dolt_diff('HEAD', 'STAGED', 't')", Expected: []sql.Row{{int32(4), "added"}}},
			{Query: "UPDATE dolt_workspace_t SET to_v = 'x'", ExpectedErrStr: "only update of column 'staged' is allowed"},
			{Query: "DELETE FROM dolt_workspace_t WHERE staged = 1", ExpectedErrStr: "cannot delete staged rows from workspace"},
			{Query: "DELETE FROM dolt_workspace_t WHERE diff_type = 'modified'", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT v FROM t WHERE pk = 2", Expected: []sql.Row{{"b"}}},
			{Query: "INSERT INTO dolt_workspace_t VALUES (9, 1, 'added', 5, 'e', NULL, NULL)", ExpectedErrStr: "table doesn't support INSERT INTO"},
			{Query: "UPDATE dolt_workspace_t SET staged = 1", Expected: []sql.Row{{types.OkResult{RowsAffected: 1, Info: plan.UpdateInfo{Matched: 2, Updated: 1}}}}},
			{Query: "CALL dolt_commit('-m', 'staged rows')", SkipResultsCheck: true},
			{Query: "SELECT * FROM t AS OF 'HEAD' ORDER BY pk", Expected: []sql.Row{{int32(2), "b"}, {int32(3), "c"}, {int32(4), "d"}}},
			{Query: "SELECT * FROM dolt_workspace_nope", Expected: []sql.Row{}},
			{Query: "ALTER TABLE t ADD COLUMN w INT", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "INSERT INTO t VALUES (7, 'g', 7)", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "UPDATE dolt_workspace_t SET staged = 1", ExpectedErrStr: "dolt_workspace_t table is not modifiable due to schema change"},
		},
	},
	{
		Name: "dolt_workspace_dolt_schemas: stage and undo schema objects one by one",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CREATE VIEW v1 AS SELECT 1",
			"CALL dolt_commit('-Am', 'first')",
			"CREATE VIEW v2 AS SELECT 2",
			"DROP VIEW v1",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT id, staged, diff_type, to_name, from_name FROM dolt_workspace_dolt_schemas", Expected: []sql.Row{
				{uint64(0), false, "removed", nil, "v1"}, {uint64(1), false, "added", "v2", nil}}},
			{Query: "UPDATE dolt_workspace_dolt_schemas SET staged = 1 WHERE to_name = 'v2'", Expected: []sql.Row{{types.OkResult{RowsAffected: 1, Info: plan.UpdateInfo{Matched: 1, Updated: 1}}}}},
			{Query: "SELECT table_name, staged, status FROM dolt_status ORDER BY staged", Expected: []sql.Row{{"dolt_schemas", false, "modified"}, {"dolt_schemas", true, "modified"}}},
			{Query: "DELETE FROM dolt_workspace_dolt_schemas WHERE staged = 0", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT name FROM dolt_schemas ORDER BY name", Expected: []sql.Row{{"v1"}, {"v2"}}},
			{Query: "UPDATE dolt_workspace_dolt_schemas SET staged = 0", Expected: []sql.Row{{types.OkResult{RowsAffected: 1, Info: plan.UpdateInfo{Matched: 1, Updated: 1}}}}},
			{Query: "SELECT staged, diff_type, to_name FROM dolt_workspace_dolt_schemas", Expected: []sql.Row{{false, "added", "v2"}}},
			{Query: "SELECT * FROM dolt_conflicts_dolt_schemas", Expected: []sql.Row{}},
			{Query: "SELECT * FROM dolt_constraint_violations_dolt_schemas", Expected: []sql.Row{}},
		},
	},
	{
		Name: "@@dolt_show_system_tables lists the system tables",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY)",
			"CREATE PROCEDURE p() SELECT 1",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SHOW TABLES", Expected: []sql.Row{{"t"}}},
			{Query: "SET @@dolt_show_system_tables = 1", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'mydb' AND table_name IN ('dolt_log', 'dolt_procedures', 'dolt_diff_t', 'dolt_workspace_dolt_procedures', 'dolt_help', 't')", Expected: []sql.Row{{int64(6)}}},
			{Query: "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'mydb' AND table_name IN ('dolt_schemas', 'dolt_docs', 'dolt_diff')", Expected: []sql.Row{{int64(0)}}},
			{Query: "INSERT INTO dolt_docs VALUES ('README.md', 'x')", Expected: []sql.Row{{types.NewOkResult(1)}}},
			{Query: "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'mydb' AND table_name IN ('dolt_docs', 'dolt_diff_dolt_docs')", Expected: []sql.Row{{int64(2)}}},
			{Query: "SET @@dolt_show_system_tables = 'bogus'", ExpectedErrStr: "Variable 'dolt_show_system_tables' can't be set to the value of 'bogus'"},
			{Query: "SET @@dolt_show_system_tables = 0", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "SHOW TABLES", Expected: []sql.Row{{"t"}}},
		},
	},
}

func TestWorkspaceTables(t *testing.T) { runVersioningScripts(t, workspaceScripts) }

var statisticsScripts = []queries.ScriptTest{
	{
		Name: "dolt_statistics: what ANALYZE TABLE measured, an index a row",
		SetUpScript: []string{
			"CREATE TABLE t (pk INT PRIMARY KEY, v INT, w VARCHAR(5), KEY iv (v), KEY ivw (v, w))",
			"INSERT INTO t VALUES (1, 1, 'a'), (2, 2, NULL), (3, 3, 'c'), (4, 1, 'a'), (5, NULL, 'e')",
		},
		Assertions: []queries.ScriptTestAssertion{
			{Query: "SELECT * FROM dolt_statistics", Expected: []sql.Row{}},
			{Query: "ANALYZE TABLE t", SkipResultsCheck: true},
			{Query: "SELECT table_name, index_name, row_count, distinct_count, null_count, columns, types, upper_bound, upper_bound_cnt FROM dolt_statistics", Expected: []sql.Row{
				{"t", "iv", uint64(5), uint64(4), uint64(1), "v", "int", "3", uint64(1)},
				{"t", "ivw", uint64(5), uint64(4), uint64(2), "v,w", "int,varchar(5)", "3,c", uint64(1)},
				{"t", "primary", uint64(5), uint64(5), uint64(0), "pk", "int", "5", uint64(1)},
			}},
			{Query: "SELECT COUNT(*) FROM dolt_statistics WHERE created_at > '2020-01-01'", Expected: []sql.Row{{int64(3)}}},
			{Query: "SELECT COUNT(*) FROM dolt_status", Expected: []sql.Row{{int64(1)}}},
			{Query: "INSERT INTO dolt_statistics VALUES ('mydb', 't', 'x', 1, 1, 0, 'x', 'int', '1', 1, '2020-01-01 00:00:00', '', '', '', '', '')", ExpectedErrStr: "table doesn't support INSERT INTO"},
			{Query: "DROP TABLE t", Expected: []sql.Row{{types.NewOkResult(0)}}},
			{Query: "SELECT * FROM dolt_statistics", Expected: []sql.Row{}},
		},
	},
}

func TestStatisticsTable(t *testing.T) { runVersioningScripts(t, statisticsScripts) }
