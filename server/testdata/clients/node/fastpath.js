// Prepared primary-key selects and single-row writes through Node's
// mysql2 (server-side prepared statements and text), for
// server/fastpath_wire_test.go's
// TestFastPathNodeMySQL2: it prints, for each execution, every attribute
// of the result's column descriptions, the rows or the error, and the
// session's state after it (FOUND_ROWS(), ROW_COUNT(), warnings, the
// statement counters, what a transaction sees). The test runs it against a
// server that answers these executions itself and one whose engine plans
// every statement, and requires the same transcript.
// Usage: node fastpath.js HOST PORT
'use strict';
const mysql = require('mysql2/promise');

const [host, port] = process.argv.slice(2);
const options = {
  host, port: Number(port), database: 'db',
  supportBigNumbers: true, bigNumberStrings: true, decimalNumbers: false, dateStrings: true, rowsAsArray: true,
};

// Seeded, so both servers get the same executions.
let seed = 42;
function rand(n) {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) % n;
}

function show(v) {
  if (v === null) return 'NULL';
  if (Buffer.isBuffer(v)) return 'x' + v.toString('hex');
  return JSON.stringify(v);
}

async function execute(conn, label, q, args) {
  const out = [label, q, JSON.stringify(args)];
  try {
    const [rows, fields] = await conn.execute(q, args);
    for (const f of fields || []) {
      out.push(`  field ${f.name} orgName=${f.orgName} table=${f.table} orgTable=${f.orgTable} schema=${f.schema} ` +
        `charset=${f.characterSet} length=${f.columnLength} type=${f.columnType} flags=${f.flags} decimals=${f.decimals}`);
    }
    for (const r of rows) out.push('  row ' + r.map(show).join(' '));
  } catch (e) {
    if (e.errno === undefined) throw e;
    out.push(`  error ${e.errno} ${e.sqlState} ${e.message}`);
  }
  const [[state]] = await conn.query('SELECT FOUND_ROWS(), ROW_COUNT()');
  out.push(`  found ${state[0]} row_count ${state[1]}`);
  console.log(out.join('\n'));
}

async function counters(conn, label) {
  const [rows] = await conn.query("SHOW SESSION STATUS WHERE Variable_name IN ('Questions', 'Com_select')");
  console.log(label, rows.map((r) => `${r[0]}=${r[1]}`).join(' '));
}

async function main() {
  const root = await mysql.createConnection({ ...options, user: 'root', password: '' });
  const reader = await mysql.createConnection({ ...options, user: 'reader', password: 'pw' });
  const queries = [
    'SELECT c FROM t WHERE id = ?',
    'SELECT id, k, c, v, d, ts, u, b, f, e FROM t WHERE id = ?',
    'SELECT v, id FROM t WHERE id BETWEEN ? AND ?',
    'SELECT d, ts FROM db.t WHERE id BETWEEN ? AND ?',
    'SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?',
    'SELECT SUM(d) FROM t WHERE id BETWEEN ? AND ?',
    'SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c',
    'SELECT DISTINCT k FROM t WHERE id BETWEEN ? AND ? ORDER BY k DESC',
    'SELECT s FROM other WHERE id = ?',
    'SELECT nope FROM t WHERE id = ?',
  ];
  const args = () => {
    const v = rand(700) - 50;
    return [v, v + rand(40)];
  };
  for (const [name, conn] of [['root', root], ['reader', reader]]) {
    for (const results of ['', 'latin1', 'binary']) {
      await conn.query(results === '' ? 'SET character_set_results = NULL' : `SET character_set_results = '${results}'`);
      for (let i = 0; i < 40; i++) {
        const q = queries[rand(queries.length)];
        const a = args();
        await execute(conn, `${name} results=${results}`, q, q.includes('BETWEEN') ? a : a.slice(0, 1));
      }
    }
    await conn.query('SET character_set_results = utf8mb4');
    // (Not after the values below: the engine's own plan of `id = NULL`
    // reads no table, and the engine then does not count a select.)
    await counters(conn, `${name} counters`);
    // Values the engine binds itself: strings, decimals, NULL, and
    // integers the key cannot hold.
    for (const a of [['3'], ['3.0'], [null], [-1], ['18446744073709551615'], [2 ** 40]]) {
      await execute(conn, `${name} values`, 'SELECT c FROM t WHERE id = ?', a);
      await execute(conn, `${name} values`, 'SELECT id FROM u8 WHERE id = ?', a);
    }
    // A warning of the last statement goes with the next one.
    await conn.query("SELECT CAST('x' AS SIGNED)");
    console.log(`${name} warnings before`, JSON.stringify((await conn.query('SHOW WARNINGS'))[0]));
    await conn.query("SELECT CAST('x' AS SIGNED)");
    await conn.execute('SELECT c FROM t WHERE id = ?', [6]);
    console.log(`${name} warnings after`, JSON.stringify((await conn.query('SHOW WARNINGS'))[0]));
  }

  // What transactions see: an autocommitted execution sees the last
  // commit; one in a transaction keeps the transaction's snapshot.
  await root.execute('SELECT k FROM t WHERE id = ?', [3]);
  await reader.query('START TRANSACTION');
  await execute(reader, 'in a transaction', 'SELECT k FROM t WHERE id = ?', [3]);
  await root.query('UPDATE t SET k = k + 100 WHERE id = 3');
  await execute(reader, 'in a transaction, after an update', 'SELECT k FROM t WHERE id = ?', [3]);
  await reader.query('COMMIT');
  await execute(reader, 'after the commit', 'SELECT k FROM t WHERE id = ?', [3]);
  // Two executions in a row, with a commit of another session between.
  await reader.execute('SELECT k FROM t WHERE id = ?', [3]);
  await root.query('UPDATE t SET k = k + 100 WHERE id = 3');
  await execute(reader, 'autocommit, after an update', 'SELECT k FROM t WHERE id = ?', [3]);
  await reader.query('SET autocommit = 0');
  await execute(reader, 'autocommit off', 'SELECT k FROM t WHERE id = ?', [3]);
  await root.query('UPDATE t SET k = k + 100 WHERE id = 3');
  await execute(reader, 'autocommit off, after an update', 'SELECT k FROM t WHERE id = ?', [3]);
  await reader.query('ROLLBACK');
  await execute(reader, 'autocommit off, after a rollback', 'SELECT k FROM t WHERE id = ?', [3]);
  await reader.query('SET autocommit = 1');

  // BEGIN and COMMIT as text, in their spellings: the OK packet's status
  // flags, warnings and affected rows, the session's ROW_COUNT() after,
  // and what a transaction so begun sees.
  for (const q of ['BEGIN', 'begin;', ' START TRANSACTION ', 'COMMIT', 'commit ;', 'COMMIT', 'BEGIN WORK', 'COMMIT WORK',
    'START TRANSACTION READ ONLY', 'ROLLBACK', 'start transaction', 'BEGIN', 'COMMIT']) {
    await reader.query("SELECT CAST('x' AS SIGNED)");
    const [res] = await reader.query(q);
    const [[rc]] = await reader.query('SELECT ROW_COUNT()');
    console.log('txn', JSON.stringify(q), res.serverStatus, res.warningStatus, res.affectedRows, rc[0]);
    if (q.trim().toLowerCase().startsWith('begin') || q.trim().toLowerCase().startsWith('start')) {
      await execute(reader, `after ${q}`, 'SELECT k FROM t WHERE id = ?', [3]);
      await root.query('UPDATE t SET k = k + 1 WHERE id = 3');
      await execute(reader, `after ${q} and an update`, 'SELECT k FROM t WHERE id = ?', [3]);
    }
  }
  // The same, prepared (sysbench prepares its BEGIN and COMMIT).
  for (const q of ['BEGIN', 'COMMIT', 'START TRANSACTION', 'COMMIT', 'START TRANSACTION READ ONLY', 'COMMIT', 'BEGIN WORK',
    'ROLLBACK', 'start transaction', 'COMMIT WORK', 'BEGIN', 'COMMIT']) {
    await reader.query("SELECT CAST('x' AS SIGNED)");
    const [res] = await reader.execute(q, []);
    const [[rc]] = await reader.query('SELECT ROW_COUNT()');
    const [warnings] = await reader.query('SHOW WARNINGS');
    console.log('prepared txn', JSON.stringify(q), res.serverStatus, res.warningStatus, res.affectedRows, rc[0], warnings.length);
    if (q.toLowerCase().startsWith('begin') || q.toLowerCase().startsWith('start')) {
      await execute(reader, `after prepared ${q}`, 'SELECT k FROM t WHERE id = ?', [3]);
      await root.query('UPDATE t SET k = k + 1 WHERE id = 3');
      await execute(reader, `after prepared ${q} and an update`, 'SELECT k FROM t WHERE id = ?', [3]);
    }
  }
  // BEGIN commits what the session had pending; COMMIT what it wrote.
  await root.query('SET autocommit = 0');
  await root.query('UPDATE t SET k = k + 1000 WHERE id = 3');
  await root.query('BEGIN');
  await execute(reader, "after another session's BEGIN", 'SELECT k FROM t WHERE id = ?', [3]);
  await root.query('UPDATE t SET k = k + 1000 WHERE id = 3');
  await root.query('COMMIT');
  await execute(reader, "after another session's COMMIT", 'SELECT k FROM t WHERE id = ?', [3]);
  await root.query('SET autocommit = 1');
  await reader.query('SET autocommit = 0');
  await execute(reader, 'autocommit off again', 'SELECT k FROM t WHERE id = ?', [3]);
  await root.query('UPDATE t SET k = k + 1 WHERE id = 3');
  const [res] = await reader.query('COMMIT');
  console.log('autocommit off, commit', res.serverStatus);
  await execute(reader, 'autocommit off, after a commit', 'SELECT k FROM t WHERE id = ?', [3]);
  await reader.query('SET autocommit = 1');

  // A privilege taken away between two executions of one statement.
  const stmt = await reader.prepare('SELECT c FROM t WHERE id = ?');
  const run = async (label) => {
    try {
      const [rows] = await stmt.execute([9]);
      console.log(label, rows.map((r) => r.map(show).join(' ')).join(', '));
    } catch (e) {
      if (e.errno === undefined) throw e;
      console.log(label, 'error', e.errno, e.sqlState, e.message);
    }
  };
  await run('granted');
  await root.query("REVOKE SELECT ON db.t FROM 'reader'@'%'");
  await run('revoked');
  await root.query("GRANT SELECT ON db.t TO 'reader'@'%'");
  await run('granted again');
  await stmt.close();

  // A column added between two executions of one statement.
  const all = await root.prepare('SELECT id, c FROM t WHERE id BETWEEN ? AND ?');
  const [before, f1] = await all.execute([3, 9]);
  await root.query("ALTER TABLE t MODIFY c VARCHAR(40) NOT NULL DEFAULT ''");
  const [after, f2] = await all.execute([3, 9]);
  console.log('alter', JSON.stringify(before), f1.map((f) => f.columnLength), JSON.stringify(after), f2.map((f) => f.columnLength));
  await all.close();

  // Single-row writes, prepared and as text, with the client's
  // CLIENT_FOUND_ROWS (mysql2's default) and without: the whole OK packet
  // (affected rows, insert id, info, status, warnings, changed rows), then
  // ROW_COUNT(), LAST_INSERT_ID() and FOUND_ROWS().
  const nofound = await mysql.createConnection({ ...options, user: 'root', password: '', flags: ['-FOUND_ROWS'] });
  const writes = [
    ['INSERT INTO w (id, k, c) VALUES (?, ?, ?)', () => [[0, null, 5, -2][rand(4)], rand(5), ['a', 'bb', 'ccccccccccc', null][rand(4)]]],
    ['INSERT INTO w VALUES (?, ?, ?)', () => [rand(30), rand(5), 'v']],
    ['UPDATE w SET k = k + ? WHERE id = ?', () => [rand(2), rand(30)]],
    ['UPDATE w SET c = ?, k = ? WHERE id = ?', () => [['x', 'yy'][rand(2)], rand(2), rand(30)]],
    ['DELETE FROM w WHERE id = ?', () => [rand(30)]],
  ];
  for (const [name, conn] of [['found rows', root], ['no found rows', nofound]]) {
    for (let i = 0; i < 60; i++) {
      const [q, a] = writes[rand(writes.length)];
      const args = a();
      const out = [`${name} write`, q, JSON.stringify(args)];
      try {
        const [res] = i % 2 === 0 ? await conn.execute(q, args) : await conn.query(q, args);
        out.push(`  ok affected=${res.affectedRows} insertId=${res.insertId} info=${JSON.stringify(res.info)} ` +
          `status=${res.serverStatus} warnings=${res.warningStatus} changed=${res.changedRows}`);
      } catch (e) {
        if (e.errno === undefined) throw e;
        out.push(`  error ${e.errno} ${e.sqlState} ${e.message}`);
      }
      const [[state]] = await conn.query('SELECT ROW_COUNT(), LAST_INSERT_ID(), FOUND_ROWS()');
      out.push(`  row_count ${state[0]} last_insert_id ${state[1]} found ${state[2]}`);
      console.log(out.join('\n'));
    }
  }
  const [wrows] = await root.query('SELECT * FROM w ORDER BY id');
  console.log('w', JSON.stringify(wrows));
  await nofound.end();
  await root.end();
  await reader.end();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
