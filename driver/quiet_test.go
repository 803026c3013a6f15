package driver

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestQuiet: the driver prints nothing, to stdout or stderr, through a
// session's life with errors, cancellations and commits: a child process
// runs them and its output must be empty.
func TestQuiet(t *testing.T) {
	if dir := os.Getenv("VERSO_DRIVER_QUIET_DIR"); dir != "" {
		if err := noisyWork(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0) // before the test framework prints PASS
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestQuiet$", "-test.count=1")
	cmd.Env = append(os.Environ(), "VERSO_DRIVER_QUIET_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	if len(out) > 0 {
		t.Fatalf("the driver printed:\n%s", out)
	}
}

// noisyWork does what might make an engine log.
func noisyWork(dir string) error {
	cfg := Config{Dir: dir}
	db, err := sql.Open("verso", cfg.FormatDSN())
	if err != nil {
		return err
	}
	ctx := context.Background()
	must := func(q string, args ...any) {
		if err == nil {
			_, err = db.ExecContext(ctx, q, args...)
		}
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	must("CREATE DATABASE shop")
	_, err = c.ExecContext(ctx, "USE shop")
	must2 := func(q string, args ...any) {
		if err == nil {
			_, err = c.ExecContext(ctx, q, args...)
		}
	}
	must2("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10) UNIQUE)")
	must2("INSERT INTO t VALUES (?, ?)", 1, "a")
	if err != nil {
		return err
	}
	for _, q := range []string{
		"INSERT INTO t VALUES (1, 'b')", "INSERT INTO t VALUES (2, 'a')", "SELECT * FROM missing",
		"SELEC 1", "CALL dolt_commit('-Am', 'no identity')", "CALL dolt_checkout('nowhere')",
		"SELECT 1; SELECT 2", "USE nowhere",
	} {
		if _, err := c.ExecContext(ctx, q); err == nil {
			return fmt.Errorf("%s: no error", q)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	c.ExecContext(cctx, "SELECT SLEEP(5)")
	cancel()
	tx, err := c.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	tx.Exec("INSERT INTO t VALUES (3, 'c')")
	tx.Rollback()
	s, err := c.PrepareContext(ctx, "SELECT v FROM t WHERE id = ?")
	if err != nil {
		return err
	}
	for i := range 10 {
		var v string
		s.QueryRow(i).Scan(&v)
	}
	s.Close()
	must2("SET @@dolt_committer_name = 'a', @@dolt_committer_email = 'a@b'")
	must2("CALL dolt_commit('-Am', 'first')")
	must2("CALL dolt_checkout('-b', 'feature')")
	must2("INSERT INTO t VALUES (5, 'e')")
	must2("CALL dolt_commit('-am', 'second')")
	must2("CALL dolt_checkout('main')")
	must2("CALL dolt_merge('feature')")
	if err != nil {
		return err
	}
	c.Close()
	return db.Close()
}
