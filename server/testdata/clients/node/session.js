// The client session of server/clients_test.go with Node's mysql2: it
// prints the transcript of ../session.golden.
// Usage: node session.js HOST PORT CA
'use strict';
const fs = require('fs');
const mysql = require('mysql2/promise');

const [host, port, ca] = process.argv.slice(2);

// Values as the other clients print them: exact numbers and times as the
// server sends them (strings), not JavaScript numbers and Dates.
const options = {
  host, port: Number(port), user: 'app', password: 'pw',
  supportBigNumbers: true, bigNumberStrings: true, decimalNumbers: false, dateStrings: true,
};

async function main() {
  // TLS, verifying the certificate (and the host name) with the CA.
  const conn = await mysql.createConnection({ ...options, ssl: { ca: fs.readFileSync(ca), servername: host } });
  const one = async (q, args) => (await conn.query(q, args))[0][0];
  const cipher = await one("SHOW STATUS LIKE 'Ssl_cipher'");
  console.log('tls', cipher.Value !== '' ? 'true' : 'false');
  console.log('user', Object.values(await one('SELECT CURRENT_USER()'))[0]);
  await conn.query('CREATE DATABASE shop');
  await conn.query('USE shop');
  await conn.query("CREATE TABLE items (id BIGINT UNSIGNED PRIMARY KEY, price DECIMAL(10,2), at DATETIME(6), doc JSON, data BLOB, kind ENUM('a','b','c'), name VARCHAR(5))");
  // execute() is a server-side prepared statement.
  for (const row of [
    ['18446744073709551615', '12345678.90', '2026-01-02 03:04:05.123456', '{"a": [1, 2, {"b": null}]}', Buffer.from([0x00, 0xff, 0x10, 0x78]), 'b', 'hello'],
    [1, '-0.50', '1999-12-31 23:59:59.000001', '[]', Buffer.from('a'), 'a', ''],
  ]) {
    const [res] = await conn.execute('INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?)', row);
    console.log('insert', res.affectedRows);
  }
  const [rows] = await conn.execute('SELECT id, price, at, CAST(doc AS CHAR) AS doc, data, kind, name FROM items WHERE id >= ? ORDER BY id DESC', [0]);
  for (const r of rows) {
    console.log('row', r.id, r.price, r.at, r.doc, r.data.toString('hex'), r.kind, JSON.stringify(r.name));
  }

  await conn.beginTransaction();
  await conn.execute('INSERT INTO items (id, kind) VALUES (?, ?)', [2, 'c']);
  await conn.query('UPDATE items SET price = 0');
  await conn.rollback();
  const after = await one('SELECT COUNT(*) AS n, MIN(price) AS low FROM items');
  console.log('rollback', after.n, after.low);

  for (const q of [
    'INSERT INTO items (id) VALUES (1)',
    'SELECT * FROM nosuch',
    'SELEC 1',
    "INSERT INTO items (id, doc) VALUES (3, '{bad')",
    'INSERT INTO items (id) VALUES (-1)',
    "INSERT INTO items (id, name) VALUES (4, 'toolong')",
    "INSERT INTO items (id, kind) VALUES (5, 'z')",
  ]) {
    try {
      await conn.query(q);
      console.log('no error:', q);
    } catch (e) {
      if (e.errno === undefined) throw e;
      console.log('error', e.errno);
    }
  }
  const commit = await one("CALL dolt_commit('-Am', 'first')");
  console.log('commit', commit.hash.length);
  await conn.query("CALL dolt_checkout('-b', 'feature')");
  await conn.query("INSERT INTO items (id, kind) VALUES (3, 'c')");
  await conn.query("CALL dolt_commit('-am', 'feature row')");
  await conn.query("CALL dolt_checkout('main')");
  const merge = await one("CALL dolt_merge('feature')");
  console.log('merge', merge.fast_forward, merge.conflicts);
  const b = await one('SELECT active_branch() AS b, COUNT(*) AS n FROM items');
  console.log('branch', b.b, b.n);
  console.log('log', (await one('SELECT COUNT(*) AS n FROM dolt_log')).n);
  // A CALL answers with a result set for each of the procedure's SELECTs,
  // then the OK that ends it.
  await conn.query('CREATE PROCEDURE two_sets() BEGIN SELECT COUNT(*) AS n FROM items; SELECT id FROM items ORDER BY id LIMIT 2; END');
  const [sets] = await conn.query('CALL two_sets()');
  console.log('call', ...sets.filter(Array.isArray).map((rows) => rows.map((r) => Object.values(r)[0]).join(',')));
  await conn.end();

  // caching_sha2_password's fast path: the same account without TLS.
  const plain = await mysql.createConnection({ ...options, database: 'shop' });
  console.log('plain', (await plain.query('SELECT COUNT(*) AS n FROM items'))[0][0].n);
  await plain.end();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
