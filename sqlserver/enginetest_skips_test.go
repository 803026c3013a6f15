package sqlserver

import (
	"strings"

	"github.com/dolthub/go-mysql-server/enginetest/queries"
)

// engineSkips lists the engine-suite cases verso skips (enginetest_test.go,
// run with VERSO_ENGINETEST=1), keyed by script name or query in lower
// case, with the reason. Each is a known gap of this slice, not a flaky
// test. The suite consults the list by script name for script suites and
// by query for query suites.
//
// Cases the harness cannot skip by name are skipped at the level where
// they can be: whole suites in engineSuiteSkips, transaction scripts by
// what they run in transactionScriptSkip.
//
// TestEngineVersionedQueries and TestEngineVersionedQueriesPrepared
// (enginetest_versioned_test.go) skip nothing here. Two subtests show as
// skipped: DESCRIBE and SHOW CREATE TABLE myhistorytable AS OF
// '2018-12-01', which the suite itself skips (t.Skip in
// enginetest.TestVersionedQueries: the expected error differs between
// engines). verso answers them with an error that no commit of the
// branch is that old. The prepared suite stops itself (t.Skip) before its
// scripts, which bind AS OF through user variables.
var engineSkips = map[string]string{
	// verso's own identity: @@version is the MySQL version the handshake
	// announces (8.0.33), @@version_comment "verso <version>"; the suite
	// expects the engine's defaults, 8.0.31 and "Dolt".
	"select version()":              "verso answers its own @@version (the handshake's 8.0.33)",
	"show variables like 'version'": "verso answers its own @@version (the handshake's 8.0.33)",
	"show variables where variable_name = 'version' || variable_name = 'autocommit'": "verso answers its own @@version (the handshake's 8.0.33)",
	"show variables where variable_name > 'version' and variable_name like '%_%'":    "verso answers its own @@version and @@version_comment",
	"enum conversion with system variables":                                          "verso's @@version_comment is \"verso <version>\", not the engine's \"Dolt\"",
	// TestEngineAddColumn
	"add column with check constraint": "ADD COLUMN ... CHECK: the check is created before the rewrite",
	// TestEngineAddDropPks
	"drop auto-increment primary key with supporting non-unique index":               "DROP PRIMARY KEY on an auto-increment key is not refused, and its follow-ups differ",
	"drop auto-increment primary key with supporting unique index":                   "DROP PRIMARY KEY on an auto-increment key is not refused, and its follow-ups differ",
	"drop multi-column, auto-increment primary key with supporting non-unique index": "DROP PRIMARY KEY on an auto-increment key is not refused, and its follow-ups differ",
	"drop primary key auto increment":                                                "DROP PRIMARY KEY on an auto-increment key is not refused, and its follow-ups differ",
	// TestEngineAlterTable
	"multi alter with invalid schemas": "the 65535-byte row size limit is not enforced",
	// TestEngineCreateDatabase
	// TestEngineCreateTable
	"create table t1 (i int primary key, b1 blob, b2 blob, index(b1(10)), index(b2(20)), index(b1(123), b2(456)))": "SHOW CREATE TABLE lists indexes in creation order; the test expects them by name",
	"create table t1 (pk int primary key) target_row_size=4096":                                                    "table storage options are not stored",
	"create table t1 (pk int primary key) toast_tuple_target=1024":                                                 "table storage options are not stored",
	"create table t1 like mytable":                                                                                 "SHOW CREATE TABLE formatting of copied or commented tables differs",
	"create table tablewithcomment (id int not null, v int, primary key (id), key k (v)) comment='c'":              "SHOW CREATE TABLE formatting of copied or commented tables differs",
	// TestEngineForeignKeys
	"creating a foreign key on a table with an unsupported type works": "spatial column types are not stored yet",
	"referenced index includes implicit primary key columns":           "foreign keys over implicit primary key columns of an index: checks and SHOW CREATE TABLE differ",
	"reordered foreign key columns do match":                           "foreign keys over implicit primary key columns of an index: checks and SHOW CREATE TABLE differ",
	"self-referential foreign key is not case sensitive":               "foreign keys over implicit primary key columns of an index: checks and SHOW CREATE TABLE differ",
	// TestEngineIndexPrefix
	"select * from t where col1 >= ' ' order by pk;": "index choice differs: the engine's backend hashes a unique TEXT/BLOB index without a prefix (no range scans), verso keys the whole value and scans the range",
	"select * from t where col2 >= ' ' order by pk;": "index choice differs: the engine's backend hashes a unique TEXT/BLOB index without a prefix (no range scans), verso keys the whole value and scans the range",
	// TestEngineIndexQueryPlans
	"select * from comp_vector_index_t0 order by vec_distance('[50,50]', json_column) limit 5":                                             "VECTOR indexes are not supported yet (the harness leaves out CREATE VECTOR INDEX)",
	"select * from comp_vector_index_t0 order by vec_distance('[50,50]', vector_column) limit 5":                                           "VECTOR indexes are not supported yet (the harness leaves out CREATE VECTOR INDEX)",
	"select * from comp_vector_index_t0 order by vec_distance(vector_column, '[50,50]') limit 5":                                           "VECTOR indexes are not supported yet (the harness leaves out CREATE VECTOR INDEX)",
	"select pk+1 from comp_vector_index_t0 order by vec_distance('[50,50]', vector_column) limit 5":                                        "VECTOR indexes are not supported yet (the harness leaves out CREATE VECTOR INDEX)",
	"select v1+1 from comp_vector_index_t0 order by vec_distance(vector_column, '[50,50]') limit 5":                                        "VECTOR indexes are not supported yet (the harness leaves out CREATE VECTOR INDEX)",
	"select * from (select pk2 as pk1 from (select pk2 as pk1, pk3 as pk2 from three_pk where pk1=0) t1 where pk1=0) t2 where pk1=0;":      "plan shows every column read: tables do not implement sql.ProjectedTable (column pruning) yet",
	"select * from (select l.pk1 as left_pk, r.pk1 as right_pk from three_pk l join three_pk r) alias where left_pk = 1 and right_pk = 2;": "plan shows every column read: tables do not implement sql.ProjectedTable (column pruning) yet",
	"select * from (select l.left_pk as left_left, l.right_pk as left_right, r.left_pk as right_left, r.right_pk as right_right from join_view_requires_prefix l join join_view_requires_prefix r) alias where left_left = 1 and left_right = 2 and right_left = 3 and right_right = 4;": "plan shows every column read: tables do not implement sql.ProjectedTable (column pruning) yet",
	// TestEngineScripts
	"aggregate function with match":               "FULLTEXT indexes are not supported yet",
	"alter table, alter column set, drop default": "ALTER COLUMN DROP DEFAULT then INSERT: error kind differs",
	"case insensitive index handling":             "SHOW INDEX / SHOW CREATE TABLE: index listing differs",
	"found_rows() behavior":                       "FOUND_ROWS() after an indexed LIMIT differs",
	"int with auto_increment":                     "SHOW CREATE TABLE: AUTO_INCREMENT of a table at its type maximum differs",
	"intersection and except tests":               "INTERSECT of ordered, limited selects differs",
	"test index naming":                           "SHOW INDEX / SHOW CREATE TABLE: index listing differs",
	"unsigned int with auto_increment":            "SHOW CREATE TABLE: AUTO_INCREMENT of a table at its type maximum differs",
	// TestEngineShowTableStatus
	"show table status":                             "SHOW TABLE STATUS: storage statistics (lengths, averages) differ",
	"show table status from mydb":                   "SHOW TABLE STATUS: storage statistics (lengths, averages) differ",
	"show table status from mydb like 'othertable'": "SHOW TABLE STATUS: storage statistics (lengths, averages) differ",
	"show table status like '%table'":               "SHOW TABLE STATUS: storage statistics (lengths, averages) differ",
	"show table status where name = 'mytable'":      "SHOW TABLE STATUS: storage statistics (lengths, averages) differ",
}

// engineSuiteSkips lists whole engine suites verso skips, by the name after
// TestEngine, with the reason.
var engineSuiteSkips = map[string]string{}

// skippedSetup reports whether the harness leaves out a statement of the
// engine's shared setup scripts: CREATE VECTOR INDEX (verso has no vector
// indexes yet; the setup of the index suites creates two, and their tests
// are skipped in engineSkips).
func skippedSetup(query string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(query)), "create vector index")
}

// transactionScriptSkip returns why a transaction script is skipped, or "".
func transactionScriptSkip(script queries.TransactionTest) string {
	return ""
}
