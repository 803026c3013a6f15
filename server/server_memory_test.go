package server

import (
	"strings"
	"testing"
	"time"
)

// TestServerQueryMemoryLimit: a statement whose rows outgrow the
// per-statement memory limit fails with a clear error, and the server
// goes on serving.
func TestServerQueryMemoryLimit(t *testing.T) {
	s, _ := startTestServer(t, t.TempDir(), Config{MaxQueryMemory: 32 << 20})
	db := connect(t, s, "root", "", "")
	db.SetMaxOpenConns(1)
	// 200 rows of 1 MB, all held by the sort.
	q := "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i, REPEAT('x', 1000000) AS pad FROM n ORDER BY i DESC"
	start := time.Now()
	rows, err := db.Query(q)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	num, _ := mysqlErrNum(err)
	if num != 3170 || !strings.Contains(err.Error(), "--max-query-memory") {
		t.Fatalf("a 200 MB sort under a 32 MiB limit: %v (%d); want error 3170 naming --max-query-memory", err, num)
	}
	t.Logf("stopped after %v: %v", time.Since(start), err)
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM (SELECT REPEAT('x', 1000) AS pad FROM information_schema.columns LIMIT 5) t").Scan(&n); err != nil || n != 5 {
		t.Fatalf("a small query after: %d, %v", n, err)
	}
}
