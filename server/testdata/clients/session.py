# The client session of server/clients_test.go with PyMySQL: it prints
# the transcript of session.golden. Usage: python3 session.py HOST PORT CA
import ssl
import sys

import pymysql

host, port, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)  # verifies the certificate and the host name
conn = pymysql.connect(host=host, port=port, user="app", password="pw", ssl=ctx)


def one(cur, q, args=None):
    cur.execute(q, args)
    return cur.fetchone()


with conn.cursor() as cur:
    print("tls", "true" if one(cur, "SHOW STATUS LIKE 'Ssl_cipher'")[1] else "false")
    print("user", one(cur, "SELECT CURRENT_USER()")[0])
    cur.execute("CREATE DATABASE shop")
    cur.execute("USE shop")
    cur.execute("CREATE TABLE items (id BIGINT UNSIGNED PRIMARY KEY, price DECIMAL(10,2), at DATETIME(6), doc JSON, data BLOB, kind ENUM('a','b','c'), name VARCHAR(5))")
    # PyMySQL has no server-side prepared statements: the first row goes
    # through its client-side parameters, the second through the server's
    # PREPARE and EXECUTE.
    print("insert", cur.execute("INSERT INTO items VALUES (%s, %s, %s, %s, %s, %s, %s)",
                                (18446744073709551615, "12345678.90", "2026-01-02 03:04:05.123456",
                                 '{"a": [1, 2, {"b": null}]}', b"\x00\xff\x10x", "b", "hello")))
    cur.execute("PREPARE ins FROM 'INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)'")
    cur.execute("SET @id = 1, @price = -0.50, @at = '1999-12-31 23:59:59.000001', @doc = '[]', @data = 'a', @kind = 'a', @name = ''")
    print("insert", cur.execute("EXECUTE ins USING @id, @price, @at, @doc, @data, @kind, @name"))
    cur.execute("DEALLOCATE PREPARE ins")
    cur.execute("SELECT id, price, at, CAST(doc AS CHAR), data, kind, name FROM items WHERE id >= %s ORDER BY id DESC", (0,))
    for id_, price, at, doc, data, kind, name in cur.fetchall():
        print("row", id_, price, at.isoformat(sep=" ", timespec="microseconds"), doc, data.hex(), kind, '"' + name + '"')

conn.begin()
with conn.cursor() as cur:
    cur.execute("INSERT INTO items (id, kind) VALUES (%s, %s)", (2, "c"))
    cur.execute("UPDATE items SET price = 0")
conn.rollback()
with conn.cursor() as cur:
    count, low = one(cur, "SELECT COUNT(*), MIN(price) FROM items")
    print("rollback", count, low)
    for q in [
        "INSERT INTO items (id) VALUES (1)",
        "SELECT * FROM nosuch",
        "SELEC 1",
        "INSERT INTO items (id, doc) VALUES (3, '{bad')",
        "INSERT INTO items (id) VALUES (-1)",
        "INSERT INTO items (id, name) VALUES (4, 'toolong')",
        "INSERT INTO items (id, kind) VALUES (5, 'z')",
    ]:
        try:
            cur.execute(q)
            print("no error:", q)
        except pymysql.MySQLError as e:
            print("error", e.args[0])  # PyMySQL keeps no SQLSTATE
    print("commit", len(one(cur, "CALL dolt_commit('-Am', 'first')")[0]))
    one(cur, "CALL dolt_checkout('-b', 'feature')")
    cur.execute("INSERT INTO items (id, kind) VALUES (3, 'c')")
    one(cur, "CALL dolt_commit('-am', 'feature row')")
    one(cur, "CALL dolt_checkout('main')")
    _, ff, conflicts, _ = one(cur, "CALL dolt_merge('feature')")
    print("merge", ff, conflicts)
    print("branch", *one(cur, "SELECT active_branch(), COUNT(*) FROM items"))
    print("log", one(cur, "SELECT COUNT(*) FROM dolt_log")[0])
    # A CALL answers with a result set for each of the procedure's SELECTs.
    cur.execute("CREATE PROCEDURE two_sets() BEGIN SELECT COUNT(*) AS n FROM items; SELECT id FROM items ORDER BY id LIMIT 2; END")
    cur.execute("CALL two_sets()")
    sets = []
    while True:
        if cur.description:
            sets.append(",".join(str(r[0]) for r in cur.fetchall()))
        if not cur.nextset():
            break
    print("call", *sets)
conn.close()

# caching_sha2_password's fast path: the same account without TLS.
plain = pymysql.connect(host=host, port=port, user="app", password="pw", database="shop")
with plain.cursor() as cur:
    print("plain", one(cur, "SELECT COUNT(*) FROM items")[0])
plain.close()
