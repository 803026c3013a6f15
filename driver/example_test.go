package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/verso-db/verso/driver"
)

// A data directory of databases, a table changed in autocommit
// statements and in a transaction, then committed to the database's
// history, which dolt_log shows.
func Example() {
	dir, err := os.MkdirTemp("", "verso-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	cfg := driver.Config{Dir: dir, CommitName: "Jane Doe", CommitEmail: "jane@example.com"}
	db, err := sql.Open("verso", cfg.FormatDSN()) // file:///tmp/verso-example...?commitemail=...&commitname=Jane%20Doe
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	// USE changes one connection's database: hold one (or give
	// database=shop in the DSN, for every connection).
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string, args ...any) {
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			log.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE DATABASE shop")
	exec("USE shop")
	exec("CREATE TABLE products (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(8,2))")
	exec("INSERT INTO products VALUES (?, ?, ?), (?, ?, ?)", 1, "apple", "0.50", 2, "pear", "0.75")
	exec("UPDATE products SET price = price * 2 WHERE name = ?", "pear")

	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO products VALUES (?, ?, ?)", 3, "plum", "1.20"); err != nil {
		log.Fatal(err)
	}
	if _, err := tx.Exec("DELETE FROM products WHERE id = ?", 1); err != nil {
		log.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}
	exec("CALL dolt_commit('-Am', 'add products')")

	rows, err := conn.QueryContext(ctx, "SELECT name, price FROM products ORDER BY id")
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
		var name, price string // a DECIMAL comes back as a string
		if err := rows.Scan(&name, &price); err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, price)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}

	rows, err = conn.QueryContext(ctx, "SELECT committer, message FROM dolt_log")
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
		var committer, message string
		if err := rows.Scan(&committer, &message); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", committer, message)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// pear 1.50
	// plum 1.20
	// Jane Doe: add products
	// Jane Doe: Initialize data repository
}

// Statements fail with *driver.MySQLError, numbered as MySQL numbers
// them (the same fields as go-sql-driver/mysql's MySQLError).
func ExampleMySQLError() {
	dir, err := os.MkdirTemp("", "verso-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("verso", (&driver.Config{Dir: dir}).FormatDSN())
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE DATABASE shop", "CREATE TABLE shop.t (id INT PRIMARY KEY)", "INSERT INTO shop.t VALUES (1)"} {
		if _, err := db.Exec(q); err != nil {
			log.Fatal(err)
		}
	}

	_, err = db.Exec("INSERT INTO shop.t VALUES (1)")
	var me *driver.MySQLError
	if errors.As(err, &me) && me.Number == 1062 {
		fmt.Println("duplicate key, SQLSTATE", string(me.SQLState[:]))
	}
	_, err = db.Exec("SELECT * FROM shop.missing")
	fmt.Println(errors.Is(err, &driver.MySQLError{Number: 1146}))
	// Output:
	// duplicate key, SQLSTATE 23000
	// true
}

// A connector for sql.OpenDB, with every connection on a branch of a
// database.
func ExampleOpenConnector() {
	dir, err := os.MkdirTemp("", "verso-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	setup, err := sql.Open("verso", (&driver.Config{Dir: dir}).FormatDSN())
	if err != nil {
		log.Fatal(err)
	}
	conn, err := setup.Conn(context.Background()) // USE is a connection's
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range []string{"CREATE DATABASE shop", "USE shop", "CALL dolt_branch('feature')"} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			log.Fatal(err)
		}
	}
	conn.Close()

	c, err := driver.OpenConnector((&driver.Config{Dir: dir, Database: "shop/feature"}).FormatDSN())
	if err != nil {
		log.Fatal(err)
	}
	db := sql.OpenDB(c) // db.Close closes c
	defer db.Close()
	setup.Close() // the data directory stays open: c holds it

	var branch string
	if err := db.QueryRow("SELECT active_branch()").Scan(&branch); err != nil {
		log.Fatal(err)
	}
	fmt.Println(branch)
	// Output:
	// feature
}
