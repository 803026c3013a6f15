package server

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// startAccessServer starts a server with a superuser root (password
// rootpw), the databases db1 and db2, and the account u (password pw)
// granted ALL on db1.* only. It returns the server and root's pool.
func startAccessServer(t *testing.T) (*Server, *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	s, _ := startTestServer(t, dir, Config{User: "root", Password: "rootpw", UsersFile: filepath.Join(dir, ".verso-users")})
	root := connect(t, s, "root", "rootpw", "")
	for _, q := range []string{
		"CREATE DATABASE db1",
		"CREATE DATABASE db2",
		"CREATE TABLE db2.secret (id INT PRIMARY KEY)",
		"CREATE USER 'u'@'%' IDENTIFIED BY 'pw'",
		"GRANT ALL ON db1.* TO 'u'@'%'",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return s, root
}

// execErr runs q on db and checks that it fails with MySQL error num and a
// message holding msg.
func execErr(t *testing.T, db *sql.DB, num uint16, msg, q string) {
	t.Helper()
	_, err := db.Exec(q)
	if n, _ := mysqlErrNum(err); n != num || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %v, want error %d with %q", q, err, num, msg)
	}
}

// globalVar returns @@GLOBAL.name.
func globalVar(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRow("SELECT @@GLOBAL." + name).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestServerSetGlobalPrivilege: SET GLOBAL and SET PERSIST change every
// session's settings, so they need SUPER (or SYSTEM_VARIABLES_ADMIN), as
// in MySQL; SET SESSION needs nothing.
func TestServerSetGlobalPrivilege(t *testing.T) {
	s, root := startAccessServer(t)
	u := connect(t, s, "u", "pw", "db1")
	globals := map[string]string{}
	for _, v := range []string{"autocommit", "sql_mode", "read_only", "max_connections", "transaction_isolation"} {
		globals[v] = globalVar(t, root, v)
	}
	t.Cleanup(func() {
		for v, before := range globals {
			if v == "sql_mode" || v == "transaction_isolation" {
				before = "'" + before + "'"
			}
			if _, err := root.Exec("SET GLOBAL " + v + " = " + before); err != nil {
				t.Errorf("restoring @@GLOBAL.%s: %v", v, err)
			}
		}
	})
	const denied = "Access denied; you need (at least one of) the SUPER or SYSTEM_VARIABLES_ADMIN privilege(s) for this operation"
	for _, q := range []string{
		"SET GLOBAL autocommit = 0",
		"SET @@GLOBAL.autocommit = 0",
		"SET GLOBAL sql_mode = ''",
		"SET GLOBAL read_only = 1",
		"SET GLOBAL max_connections = 1",
		"SET PERSIST max_connections = 1",
		"SET PERSIST_ONLY max_connections = 1",
		"SET autocommit = 1, GLOBAL autocommit = 0",
		"SET GLOBAL TRANSACTION ISOLATION LEVEL SERIALIZABLE",
	} {
		execErr(t, u, 1227, denied, q)
	}
	for _, q := range []string{"SET autocommit = 1", "SET SESSION sql_mode = ''", "SET @@SESSION.autocommit = 1", "SET @x = 1"} {
		if _, err := u.Exec(q); err != nil {
			t.Errorf("u: %s: %v", q, err)
		}
	}
	for v, before := range globals {
		if got := globalVar(t, root, v); got != before {
			t.Errorf("@@GLOBAL.%s = %s after u's attempts, want %s", v, got, before)
		}
	}
	// A session of u's after the attempts still autocommits.
	if _, err := u.Exec("CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM db1.t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows: %d, %v", n, err)
	}

	// With SUPER, SET GLOBAL works.
	for _, q := range []string{"CREATE USER 'admin'@'%' IDENTIFIED BY 'pw'", "GRANT SUPER ON *.* TO 'admin'@'%'"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	admin := connect(t, s, "admin", "pw", "")
	if _, err := admin.Exec("SET GLOBAL max_connections = " + globals["max_connections"]); err != nil {
		t.Errorf("admin (SUPER): SET GLOBAL: %v", err)
	}
}

// TestServerDatabasePrivileges: CREATE DATABASE and DROP DATABASE need
// the privilege on the database named (or globally), not on the current
// database, and the per-database variables (@@<db>_head and its kin) of a
// database the account has no privilege on are unknown to it, as the
// database is.
func TestServerDatabasePrivileges(t *testing.T) {
	s, root := startAccessServer(t)
	u := connect(t, s, "u", "pw", "db1")
	noDB := connect(t, s, "u", "pw", "")
	execErr(t, u, 1044, "Access denied for user 'u'@'%' to database 'db3'", "CREATE DATABASE db3")
	execErr(t, noDB, 1044, "Access denied for user 'u'@'%' to database 'db3'", "CREATE DATABASE db3")
	execErr(t, u, 1044, "Access denied for user 'u'@'%' to database 'db2'", "DROP DATABASE db2")
	execErr(t, u, 1044, "Access denied for user 'u'@'%' to database 'db2'", "DROP DATABASE IF EXISTS db2")
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name IN ('db2', 'db3')").Scan(&n); err != nil || n != 1 {
		t.Fatalf("db2 and db3: %d of them exist (%v), want db2 only", n, err)
	}

	for _, v := range []string{"db2_head", "db2_head_ref", "db2_working", "db2_staged", "DB2_Head"} {
		var got sql.NullString
		err := u.QueryRow("SELECT @@" + v).Scan(&got)
		if n, _ := mysqlErrNum(err); n != 1193 || !strings.Contains(err.Error(), "Unknown system variable") {
			t.Errorf("u: SELECT @@%s: %q, %v, want error 1193 (Unknown system variable)", v, got.String, err)
		}
	}
	execErr(t, u, 1193, "Unknown system variable", "SET @@db2_head_ref = 'main'")
	var head string
	if err := u.QueryRow("SELECT @@db1_head").Scan(&head); err != nil || len(head) < 20 {
		t.Errorf("u: @@db1_head = %q, %v", head, err)
	}
	rows, err := u.Query("SHOW VARIABLES LIKE 'db2%'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name, value string
		rows.Scan(&name, &value)
		t.Errorf("u: SHOW VARIABLES lists %s", name)
	}
	rows.Close()

	// A grant on the new database's name is what CREATE DATABASE needs.
	if _, err := root.Exec("GRANT CREATE, DROP ON db3.* TO 'u'@'%'"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE DATABASE db3", "DROP DATABASE db3"} {
		if _, err := u.Exec(q); err != nil {
			t.Errorf("u with CREATE, DROP on db3.*: %s: %v", q, err)
		}
	}
}

// TestServerRevisionDatabaseGrants: a revision database (db/branch,
// db/<commit>) has its database's grants, as in Dolt: u, granted db1.*,
// reads db1/main and a commit of db1, and no revision of db2.
func TestServerRevisionDatabaseGrants(t *testing.T) {
	s, root := startAccessServer(t)
	for _, q := range []string{"CREATE TABLE db1.t (id INT PRIMARY KEY)", "INSERT INTO db1.t VALUES (1)", "USE db1", "CALL dolt_commit('-Am', 'one')",
		"USE db2", "CALL dolt_commit('-Am', 'secret')"} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u := connect(t, s, "u", "pw", "db1")
	var n int
	for _, q := range []string{"SELECT COUNT(*) FROM `db1/main`.t", "SELECT COUNT(*) FROM t AS OF 'HEAD'"} {
		if err := u.QueryRow(q).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s: %d, %v", q, n, err)
		}
	}
	var head string
	if err := u.QueryRow("SELECT hashof('HEAD')").Scan(&head); err != nil {
		t.Fatal(err)
	}
	if err := u.QueryRow("SELECT COUNT(*) FROM `db1/" + head + "`.t").Scan(&n); err != nil || n != 1 {
		t.Errorf("db1 at a commit: %d, %v", n, err)
	}
	execErr(t, u, 1044, "db2", "SELECT * FROM `db2/main`.secret")
	execErr(t, u, 1044, "db2", "USE `db2/main`")
}
