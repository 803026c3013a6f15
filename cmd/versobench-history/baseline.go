package main

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"
)

// logCols are dolt_log's columns, verso's and Dolt's alike.
const logCols = "commit_hash, committer, email, date, message, commit_order, parents, refs, signature, author, author_email, author_date"

// dialect is what differs between the servers' system tables.
type dialect struct {
	// wholeTables: copy each system table with one full scan. Otherwise
	// the copy goes commit batch by commit batch, by index lookups (an IN
	// list of 2000 hashes), which keeps each statement small. Dolt needs
	// the full scans: its dolt_diff_t answers such an IN list with
	// duplicate rows.
	wholeTables bool
}

var (
	versoDialect = dialect{}
	doltDialect  = dialect{wholeTables: true}
)

// materialize copies the system tables of bench into ordinary tables of
// base. log_m also gets log_pos, each commit's place in dolt_log (1 for
// the first row), indexed: the baseline of a read of the log in its
// order.
func materialize(ctx context.Context, db *gosql.DB, d dialect) error {
	const author = ", author text, author_email text, author_date datetime(6)"
	for _, q := range []string{
		`CREATE TABLE base.log_m (commit_hash varchar(32) PRIMARY KEY, committer text, email text, date datetime(6),
			message text, commit_order bigint unsigned, parents text, refs text, signature text, author text,
			author_email text, author_date datetime(6), log_pos bigint, UNIQUE INDEX log_pos (log_pos))`,
		`CREATE TABLE base.commits_m (commit_hash varchar(32) PRIMARY KEY, committer text, email text, date datetime(6), message text` + author + `)`,
		`CREATE TABLE base.ancestors_m (commit_hash varchar(32), parent_hash varchar(32), parent_index int,
			PRIMARY KEY (commit_hash, parent_index))`,
		`CREATE TABLE base.diff_m (commit_hash varchar(32), table_name varchar(64), committer text, email text,
			date datetime(6), message text, data_change tinyint, schema_change tinyint` + author + `, PRIMARY KEY (commit_hash, table_name))`,
		`CREATE TABLE base.diff_t_m (to_pk bigint, to_v bigint, to_s varchar(64), to_f double, to_commit varchar(32),
			to_commit_date datetime(6), from_pk bigint, from_v bigint, from_s varchar(64), from_f double,
			from_commit varchar(32), from_commit_date datetime(6), diff_type varchar(16), row_pk bigint,
			PRIMARY KEY (to_commit, from_commit, row_pk), INDEX from_commit (from_commit))`,
		`CREATE TABLE base.history_t_m (pk bigint, v bigint, s varchar(64), f double, commit_hash varchar(32),
			committer text, commit_date datetime(6), PRIMARY KEY (commit_hash, pk))`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	copies := []string{
		"INSERT INTO base.log_m (" + logCols + ") SELECT " + logCols + " FROM bench.dolt_log",
		"INSERT INTO base.commits_m SELECT * FROM bench.dolt_commits",
		"INSERT INTO base.ancestors_m SELECT * FROM bench.dolt_commit_ancestors",
		"INSERT INTO base.diff_m SELECT * FROM bench.dolt_diff",
		"INSERT INTO base.diff_t_m SELECT *, COALESCE(to_pk, from_pk) FROM bench.dolt_diff_t",
		"INSERT INTO base.history_t_m SELECT * FROM bench.dolt_history_t",
	}
	const batch = 2000
	if d.wholeTables {
		for _, q := range copies {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
	} else {
		all, err := column(ctx, db, "SELECT commit_hash FROM bench.dolt_commits")
		if err != nil {
			return err
		}
		keys := []string{"commit_hash", "commit_hash", "commit_hash", "commit_hash", "to_commit", "commit_hash"}
		for i := 0; i < len(all); i += batch {
			in := "'" + strings.Join(all[i:min(i+batch, len(all))], "','") + "'"
			for j, q := range copies {
				if _, err := db.ExecContext(ctx, q+" WHERE "+keys[j]+" IN ("+in+")"); err != nil {
					return fmt.Errorf("%s WHERE %s IN (...): %w", q, keys[j], err)
				}
			}
		}
	}
	log, err := column(ctx, db, "SELECT commit_hash FROM bench.dolt_log")
	if err != nil {
		return err
	}
	for i := 0; i < len(log); i += batch {
		var vals []string
		for j, h := range log[i:min(i+batch, len(log))] {
			vals = append(vals, fmt.Sprintf("('%s', %d)", h, i+j+1))
		}
		q := "INSERT INTO base.log_m (commit_hash, log_pos) VALUES " + strings.Join(vals, ", ") +
			" ON DUPLICATE KEY UPDATE log_pos = VALUES(log_pos)"
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("log_pos: %w", err)
		}
	}
	return nil
}

// column returns the first column of every row of q.
func column(ctx context.Context, db *gosql.DB, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(gosql.RawBytes)
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return nil, err
		}
		out = append(out, string(*vals[0].(*gosql.RawBytes)))
	}
	return out, rows.Err()
}

// counts returns the rows of the baseline's main tables, for the report.
func counts(db *gosql.DB) (log, diff, history int64, err error) {
	err = db.QueryRow("SELECT (SELECT COUNT(*) FROM base.log_m), (SELECT COUNT(*) FROM base.diff_t_m), (SELECT COUNT(*) FROM base.history_t_m)").
		Scan(&log, &diff, &history)
	return log, diff, history, err
}
