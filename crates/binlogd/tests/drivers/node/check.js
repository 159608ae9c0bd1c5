// Node mysql2 against a server (tests/drivers_node.rs runs it against binlogd and MariaDB).
//
// Usage: node check.js <port> <socket> <types.tsv> <phase,...> [user password]...
// Phases as DriverCheck.java's: conn (TCP with RSA / fast path, TLS, Unix socket, per account),
// types (every row of types.tsv through `query` (text) and `execute` (server-side prepared),
// printing mysql2's field metadata as "meta" lines), pool (mysql2's pool: concurrent
// transactions, ping, reset of session state, changed settings).
// A line starting with FAIL makes the exit status 1.
'use strict';
const fs = require('fs');
const mysql = require('mysql2/promise');

const [port, socket, typesFile, phasesArg, ...rest] = process.argv.slice(2);
const phases = phasesArg.split(',');
const accounts = [];
for (let i = 0; i + 1 < rest.length; i += 2) accounts.push([rest[i], rest[i + 1]]);
const cols = fs.readFileSync(typesFile, 'utf8').split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'))
  .map((l) => {
    const [name, sqlType, kind, ...value] = l.split('\t');
    return { name, sqlType, kind, value: value.join('\t') };
  });
let failures = 0;
function fail(what) { failures++; console.log('FAIL ' + what); }
function eq(got, want, what) {
  if (got !== want) fail(`${what}: got <${got}> want <${want}>`);
}

function options(transport, user, password, extra = {}) {
  const o = { user, password, connectTimeout: 10000, supportBigNumbers: true,
    bigNumberStrings: true, dateStrings: true, charset: 'UTF8MB4_GENERAL_CI', ...extra };
  if (transport === 'socket') o.socketPath = socket;
  else { o.host = '127.0.0.1'; o.port = Number(port); }
  if (transport === 'tls') o.ssl = { rejectUnauthorized: false };
  return o;
}

async function status(c, name) {
  const [rows] = await c.query(`SHOW SESSION STATUS LIKE '${name}'`);
  return rows.length ? rows[0].Value : null;
}

async function conn() {
  for (const [user, password] of accounts) {
    // tcp twice: the first caching_sha2 login is a full authentication (RSA key exchange
    // without TLS), the second the fast path.
    for (const transport of ['tcp', 'tcp', 'tls', 'socket']) {
      let c;
      try {
        c = await mysql.createConnection(options(transport, user, password));
        const [[row]] = await c.query('SELECT CURRENT_USER() AS u');
        const cipher = await status(c, 'Ssl_cipher');
        const version = await status(c, 'Ssl_version');
        const tls = cipher !== null && cipher !== '';
        eq(tls, transport === 'tls', `${user} ${transport} Ssl_cipher`);
        eq(version !== null && version !== '', tls, `${user} ${transport} Ssl_version`);
        console.log(`conn ${user} ${transport} ${row.u} tls=${tls}`);
      } catch (e) {
        fail(`connect ${user} ${transport}: ${e.message}`);
      } finally {
        if (c) await c.end();
      }
    }
  }
}

function literal(c) {
  if (c.kind === 'string' || c.kind === 'datetime') {
    return "'" + c.value.replace(/\\/g, '\\\\').replace(/'/g, "''") + "'";
  }
  return c.value;
}

// The value bound to `execute`, as an application would hold it.
function param(c) {
  switch (c.kind) {
    case 'int': case 'uint': return BigInt(c.value);
    case 'bool': return c.value !== '0';
    case 'double': return Number(c.value);
    case 'decimal': case 'string': case 'datetime': return c.value;
    default: throw new Error('kind ' + c.kind);
  }
}

// The value read back, in types.tsv's text form (mysql2 gives numbers, strings or, with
// bigNumberStrings, strings for BIGINT and DECIMAL).
function canonical(c, v) {
  if (v === null) return null;
  if (c.kind === 'double') return Number(c.value) === Number(v) ? c.value : String(v);
  if (c.kind === 'bool') return typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
  return String(v);
}

const FIELD_KEYS = ['name', 'orgName', 'table', 'orgTable', 'db', 'characterSet', 'encoding',
  'columnLength', 'columnType', 'type', 'flags', 'decimals', 'typeName'];

function meta(mode, fields) {
  for (const f of fields) {
    const parts = FIELD_KEYS.map((k) => `${k}=${f[k]}`);
    console.log(`meta ${mode} ${f.name} ${parts.join(' ')}`);
  }
}

function checkRows(mode, rows, fields) {
  meta(mode, fields);
  eq(rows.length, 4, mode + ' rows');
  for (const r of rows) {
    const id = Number(r.id);
    for (const c of cols) {
      const want = id <= 2 ? c.value : null;
      eq(canonical(c, r[c.name]), want, `${mode} row ${id} ${c.name} (${c.sqlType})`);
    }
  }
}

async function types(user, password) {
  const db = 'drv_node';
  const c = await mysql.createConnection(options('tcp', user, password));
  try {
    await c.query(`DROP DATABASE IF EXISTS ${db}`);
    await c.query(`CREATE DATABASE ${db}`);
    await c.query(`USE ${db}`);
    const names = ['id', ...cols.map((x) => x.name)].join(', ');
    await c.query('CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, '
      + cols.map((x) => `${x.name} ${x.sqlType}`).join(', ') + ') DEFAULT CHARSET=utf8mb4');
    const [ins] = await c.query(`INSERT INTO t (${names}) VALUES (1, ${cols.map(literal).join(', ')})`);
    eq(ins.affectedRows, 1, 'text INSERT');
    await c.query(`INSERT INTO t (${names}) VALUES (4, ${cols.map(() => 'NULL').join(', ')})`);
    const marks = ['?', ...cols.map(() => '?')].join(', ');
    const [pins] = await c.execute(`INSERT INTO t (${names}) VALUES (${marks})`, [2, ...cols.map(param)]);
    eq(pins.affectedRows, 1, 'prepared INSERT');
    await c.execute(`INSERT INTO t (${names}) VALUES (${marks})`, [3, ...cols.map(() => null)]);
    const [trows, tfields] = await c.query('SELECT * FROM t ORDER BY id');
    checkRows('text', trows, tfields);
    const [prows, pfields] = await c.execute('SELECT * FROM t WHERE id > ? ORDER BY id', [0]);
    checkRows('prepared', prows, pfields);
    for (const col of cols) {
      const [[r]] = await c.execute(`SELECT COUNT(*) AS n FROM t WHERE ${col.name} = ?`, [param(col)]);
      eq(Number(r.n), 2, `WHERE ${col.name} = ? (${col.sqlType})`);
    }
    const [, efields] = await c.query("SELECT COUNT(*) AS n, SUM(ii) AS s, MAX(vc) AS mx, "
      + "'héllo' AS lit, UPPER(vc) AS up, id + 1 AS plus FROM t");
    meta('expr', efields);
  } finally {
    await c.end();
  }
}

async function pool(user, password) {
  const db = 'drv_node';
  const p = mysql.createPool({ ...options('tcp', user, password), database: db,
    connectionLimit: 4, waitForConnections: true, queueLimit: 0 });
  try {
    await p.query('CREATE TABLE p (id INT PRIMARY KEY, v VARCHAR(20))');
    // 16 concurrent workers on 4 connections, each in its own transactions.
    await Promise.all(Array.from({ length: 16 }, async (_, w) => {
      for (let i = 0; i < 10; i++) {
        const c = await p.getConnection();
        try {
          await c.beginTransaction();
          await c.execute('INSERT INTO p VALUES (?, ?)', [w * 100 + i, 'w' + w + 'ü']);
          if (i % 5 === 4) await c.rollback(); else await c.commit();
        } finally {
          c.release();
        }
      }
    }));
    const [[n]] = await p.query('SELECT COUNT(*) AS n FROM p');
    eq(Number(n.n), 16 * 8, 'committed rows');
    const c = await p.getConnection();
    try {
      await c.ping();
      await c.query('SET @pool_var = 42');
      await c.query("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'");
      await c.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
      const [[iso]] = await c.query('SELECT @@tx_isolation AS i');
      eq(iso.i, 'READ-COMMITTED', 'SET SESSION TRANSACTION ISOLATION LEVEL');
      // COM_RESET_CONNECTION (mysql2's `reset`, where the version has it), else a new
      // connection: the pool-level reset.
      if (typeof c.connection.reset === 'function') {
        await new Promise((res, rej) => c.connection.reset((e) => (e ? rej(e) : res())));
        const [[v]] = await c.query('SELECT @pool_var AS v');
        eq(v.v, null, 'user variable after reset');
      }
      await c.ping();
    } finally {
      c.release();
    }
  } finally {
    await p.end();
  }
  console.log('pool ok');
}

(async () => {
  const started = Date.now();
  const [user, password] = accounts[0];
  try {
    if (phases.includes('conn')) await conn();
    if (phases.includes('types')) await types(user, password);
    if (phases.includes('pool')) await pool(user, password);
  } catch (e) {
    fail('exception: ' + (e.stack || e));
  }
  console.log(`took ${Date.now() - started} ms`);
  process.exit(failures === 0 ? 0 : 1);
})();
