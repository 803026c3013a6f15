package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestServerGC: CALL dolt_gc() over the wire. It answers status 0 as
// Dolt's does and Dolt's argument errors; it needs SUPER (1227 for an
// account granted ALL on the database only); it runs while other
// connections increment counters with autocommit (each counter ends equal
// to the increments acknowledged), and a session that calls it inside an
// open transaction keeps its pending writes. The database's folder
// shrinks once a branch's commits are garbage.
func TestServerGC(t *testing.T) {
	dir := t.TempDir()
	s, _ := startTestServer(t, dir, Config{User: "root", Password: "rootpw", UsersFile: filepath.Join(dir, ".verso-users")})
	root := connect(t, s, "root", "rootpw", "")
	ctx := context.Background()
	for _, q := range []string{
		"CREATE DATABASE db1",
		"CREATE USER 'u'@'%' IDENTIFIED BY 'pw'",
		"GRANT ALL ON db1.* TO 'u'@'%'",
		"USE db1",
		"CREATE TABLE c (id INT PRIMARY KEY, n INT)",
		"INSERT INTO c VALUES (0, 0), (1, 0), (2, 0)",
		"CALL dolt_commit('-Am', 'counters')",
		"CALL dolt_branch('scratch')",
	} {
		if _, err := root.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"USE db1", "CALL dolt_checkout('scratch')", "CREATE TABLE junk (id INT PRIMARY KEY, s LONGTEXT)"} {
		mustExec(t, conn, q)
	}
	for i := 0; i < 30; i++ {
		mustExec(t, conn, fmt.Sprintf("INSERT INTO junk VALUES (%d, REPEAT(MD5(%d), 400))", i, i))
		mustExec(t, conn, fmt.Sprintf("CALL dolt_commit('-Am', 'junk %d')", i))
	}
	mustExec(t, conn, "CALL dolt_checkout('main')")
	mustExec(t, conn, "CALL dolt_branch('-D', 'scratch')")
	before := folderBytes(t, filepath.Join(dir, "db1"))

	var status int
	if err := conn.QueryRowContext(ctx, "CALL dolt_gc()").Scan(&status); err != nil || status != 0 {
		t.Fatalf("CALL dolt_gc(): status %d, %v", status, err)
	}
	after := folderBytes(t, filepath.Join(dir, "db1"))
	if after >= before {
		t.Fatalf("the folder went from %d to %d bytes", before, after)
	}
	t.Logf("db1: %d bytes before, %d after", before, after)

	u := connect(t, s, "u", "pw", "db1")
	execErr(t, u, 1227, "SUPER", "CALL dolt_gc()")
	r1 := connect(t, s, "root", "rootpw", "db1")
	execErr(t, r1, 1105, "no positional arguments", "CALL dolt_gc('x')")
	execErr(t, r1, 1105, "not both", "CALL dolt_gc('--shallow', '--full')")
	execErr(t, r1, 1105, "unknown option", "CALL dolt_gc('--bogus')")
	if _, err := r1.Exec("CALL dolt_gc('--shallow')"); err != nil {
		t.Fatal(err)
	}

	// Online: counters incremented under collections.
	var acked [3]atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	errc := make(chan error, 3)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			db := connect(t, s, "root", "rootpw", "db1")
			for !stop.Load() {
				if _, err := db.Exec("UPDATE c SET n = n + 1 WHERE id = ?", w); err != nil {
					errc <- err
					return
				}
				acked[w].Add(1)
			}
		}(w)
	}
	for i := 0; i < 5; i++ {
		if _, err := conn.ExecContext(ctx, "CALL dolt_gc()"); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	for w := 0; w < 3; w++ {
		var n int64
		if err := root.QueryRow("SELECT n FROM db1.c WHERE id = ?", w).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != acked[w].Load() {
			t.Fatalf("counter %d is %d, %d increments acknowledged", w, n, acked[w].Load())
		}
	}

	// The caller's own open transaction survives its collection.
	for _, q := range []string{"START TRANSACTION", "INSERT INTO c VALUES (9, 9)", "SAVEPOINT sp", "INSERT INTO c VALUES (10, 10)", "CALL dolt_gc()", "ROLLBACK TO SAVEPOINT sp", "COMMIT"} {
		mustExec(t, conn, q)
	}
	var n int
	if err := root.QueryRow("SELECT COUNT(*) FROM db1.c WHERE id IN (9, 10)").Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows of the transaction that collected: %d, %v", n, err)
	}
}

func mustExec(t *testing.T, conn *sql.Conn, q string) {
	t.Helper()
	if _, err := conn.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// folderBytes returns the bytes of the files under dir.
func folderBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
