// The verso console: a page of plain JavaScript over the server's JSON API
// (web/api.go). Views are chosen by the URL's fragment:
//   #/<db>/history[?rev=<branch>]   the commit graph, paged as it scrolls
//   #/<db>/commit/<hash>            a commit and its diff against each parent
//   #/<db>/compare?from=&to=        the diff of any two revisions
//   #/<db>/events[?rev=]            the Stats page of the event log
//   #/<db>/streams?category=        a category's streams and their retention
//   #/<db>/read?stream=             a stream or an index, page by page
//   #/<db>/query                    the query box
'use strict';

let csrf = '';
let databases = [];

// ---- helpers ---------------------------------------------------------------

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids.flat(Infinity)) {
    if (k === null || k === undefined || k === false) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}
const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

class APIError extends Error {
  constructor(body, status) {
    super(body.error || ('HTTP ' + status));
    this.status = status;
    this.sql = body.sql;
  }
}

async function api(path, opts) {
  opts = opts || {};
  const init = { method: opts.method || 'GET', credentials: 'same-origin', headers: {} };
  if (opts.body !== undefined) {
    init.body = JSON.stringify(opts.body);
    init.headers['Content-Type'] = 'application/json';
  }
  if (init.method !== 'GET') init.headers['X-CSRF-Token'] = csrf;
  const r = await fetch(path, init);
  if (r.status === 401) { location.href = '/login'; throw new APIError({ error: 'log in first' }, 401); }
  const body = await r.json().catch(() => ({ error: 'the server answered ' + r.status }));
  if (!r.ok) throw new APIError(body, r.status);
  return body;
}

function dbPath(db, rest) { return '/api/db/' + encodeURIComponent(db) + rest; }
function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && v !== undefined && v !== null) u.set(k, v);
  const s = u.toString();
  return s ? '?' + s : '';
}
function short(h) { return h ? h.slice(0, 8) : ''; }
function errorBox(err) { return el('p', { class: 'error', role: 'alert', text: err.message }); }
function fmtNum(s) { return s === null || s === undefined ? '' : Number(s).toLocaleString('en-US'); }

// A table of rows as the API gives them: columns, and rows of strings or
// null.
function dataTable(columns, rows, opts) {
  opts = opts || {};
  const head = el('tr', {}, columns.map(c => el('th', { text: c })));
  const body = rows.map(r => el('tr', {}, r.map(v => v === null
    ? el('td', { class: 'null', text: 'NULL' })
    : el('td', { class: /^-?\d+(\.\d+)?$/.test(v) ? 'num' : '', text: v }))));
  return el('div', { class: 'scroll' }, el('table', { class: 'data', id: opts.id }, el('thead', {}, head), el('tbody', {}, body)));
}

// ---- routing -----------------------------------------------------------------

function route() {
  const h = location.hash.replace(/^#\/?/, '');
  const [path, query] = h.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { parts, params: new URLSearchParams(query || '') };
}
function go(db, view, params) {
  location.hash = '#/' + encodeURIComponent(db) + '/' + view + (params ? qs(params) : '');
}

async function render() {
  const { parts, params } = route();
  const view = document.getElementById('view');
  let db = parts[0];
  if (!db || !databases.includes(db)) {
    if (databases.length === 0) {
      view.replaceChildren(el('p', { class: 'muted', text: 'This account can see no database.' }));
      return;
    }
    go(databases[0], 'history');
    return;
  }
  const kind = parts[1] || 'history';
  document.getElementById('db-select').value = db;
  for (const a of document.querySelectorAll('#nav a')) {
    const v = a.dataset.view;
    a.href = '#/' + encodeURIComponent(db) + '/' + v;
    a.classList.toggle('active', v === kind || (v === 'events' && (kind === 'streams' || kind === 'read')) || (v === 'history' && kind === 'commit'));
  }
  view.replaceChildren(el('p', { class: 'muted', text: 'Loading…' }));
  const views = { history: historyView, commit: commitView, compare: compareView, events: eventsView, streams: streamsView, read: readView, query: queryView };
  const f = views[kind];
  if (!f) { view.replaceChildren(el('p', { class: 'error', text: 'No such page: ' + kind })); return; }
  try {
    await f(view, db, parts.slice(2), params);
  } catch (err) {
    view.replaceChildren(errorBox(err));
  }
}

// ---- history -----------------------------------------------------------------

const ROW = 30, LANE = 16, PAD = 12;

// Graph lays commits out in lanes as they arrive, page after page: each
// lane holds the parent a drawn commit waits for, and the edges that lead
// to it; an edge is drawn when its parent arrives.
class Graph {
  constructor() { this.lanes = []; this.rows = 0; this.maxLane = 0; this.drawn = []; }
  free() {
    let i = this.lanes.findIndex(l => l === null);
    if (i < 0) { i = this.lanes.length; this.lanes.push(null); }
    return i;
  }
  // add places commit c on the next row and returns its lane and the
  // edges that end at it.
  add(c) {
    const row = this.rows++;
    const waiting = [];
    this.lanes.forEach((l, j) => { if (l && l.hash === c.hash) waiting.push(j); });
    const lane = waiting.length ? waiting[0] : this.free();
    const ended = [];
    for (const j of waiting) {
      for (const e of this.lanes[j].edges) ended.push({ ...e, lane: j, toLane: lane, toRow: row, to: c.hash });
      this.lanes[j] = null;
    }
    c.parents.forEach((p, k) => {
      const at = this.lanes.findIndex(l => l && l.hash === p);
      const edge = { from: c.hash, fromLane: lane, fromRow: row };
      if (at >= 0) { this.lanes[at].edges.push(edge); return; }
      const j = k === 0 && this.lanes[lane] === null ? lane : this.free();
      this.lanes[j] = { hash: p, edges: [edge] };
    });
    this.maxLane = Math.max(this.maxLane, lane, this.lanes.length - 1);
    return { lane, row, ended };
  }
  pending() {
    const out = [];
    this.lanes.forEach((l, j) => { if (l) for (const e of l.edges) out.push({ ...e, lane: j, to: l.hash }); });
    return out;
  }
}
const x = lane => PAD + lane * LANE;
const y = row => row * ROW + ROW / 2;
const laneColor = lane => 'var(--lane' + (lane % 7) + ')';

// edgePath runs from the child down its edge's lane to the parent.
function edgePath(e, toRow, toLane) {
  let d = 'M' + x(e.fromLane) + ' ' + y(e.fromRow);
  if (toLane !== undefined && toRow === e.fromRow + 1) {
    return d + ' C' + x(e.fromLane) + ' ' + (y(e.fromRow) + ROW / 2) + ' ' + x(toLane) + ' ' + (y(toRow) - ROW / 2) + ' ' + x(toLane) + ' ' + y(toRow);
  }
  const r1 = e.fromRow + 1;
  if (e.lane !== e.fromLane) d += ' C' + x(e.fromLane) + ' ' + (y(e.fromRow) + ROW / 2) + ' ' + x(e.lane) + ' ' + (y(r1) - ROW / 2) + ' ' + x(e.lane) + ' ' + y(Math.min(r1, toRow));
  if (toLane === e.lane || toLane === undefined) {
    d += ' L' + x(e.lane) + ' ' + y(toRow);
  } else {
    if (toRow - 1 > r1 || (toRow - 1 === r1 && e.lane === e.fromLane)) d += ' L' + x(e.lane) + ' ' + y(toRow - 1);
    d += ' C' + x(e.lane) + ' ' + (y(toRow) - ROW / 2) + ' ' + x(toLane) + ' ' + (y(toRow) - ROW / 2) + ' ' + x(toLane) + ' ' + y(toRow);
  }
  return d;
}

function refPills(refs) {
  if (!refs) return [];
  return refs.split(',').map(s => s.trim()).filter(Boolean).map(r => {
    if (r.startsWith('HEAD -> ')) return [el('span', { class: 'pill head', text: 'HEAD' }), el('span', { class: 'pill', text: r.slice(8) })];
    if (r === 'HEAD') return el('span', { class: 'pill head', text: 'HEAD' });
    if (r.startsWith('tag: ')) return el('span', { class: 'pill tag', text: r.slice(5) });
    return el('span', { class: 'pill', text: r });
  }).flat();
}

async function historyView(view, db, rest, params) {
  const rev = params.get('rev') || '';
  const refs = await api(dbPath(db, '/refs'));
  const sel = el('select', { id: 'branch-select', 'aria-label': 'Branch', onchange: e => go(db, 'history', { rev: e.target.value }) },
    el('option', { value: '', text: 'All branches' }),
    refs.branches.map(b => el('option', { value: b.name, text: b.name, selected: b.name === rev })));
  const search = el('input', { id: 'search', type: 'search', placeholder: 'Hash prefix, message or author', size: 32 });
  const results = el('div', { id: 'search-results' });
  search.addEventListener('keydown', async e => {
    if (e.key !== 'Enter') return;
    const q = search.value.trim();
    if (!q) { results.replaceChildren(); return; }
    try {
      const r = await api(dbPath(db, '/search' + qs({ q })));
      results.replaceChildren(el('h3', { text: r.commits.length + (r.more ? '+' : '') + ' commits match' }),
        el('div', { class: 'panel' }, r.commits.map(c => el('div', { class: 'crow', 'data-hash': c.hash, onclick: () => go(db, 'commit/' + c.hash) },
          el('span', { class: 'hash', text: short(c.hash) }), el('span', { class: 'msg' }, refPills(c.refs), c.message),
          el('span', { class: 'author', text: c.author }), el('span', { class: 'date', text: c.date })))));
    } catch (err) { results.replaceChildren(errorBox(err)); }
  });
  const g = new Graph();
  const graph = svg('svg', { class: 'graph', id: 'graph' });
  const pendingLayer = svg('g', { class: 'pending' });
  const edgeLayer = svg('g', {}), nodeLayer = svg('g', {});
  graph.append(edgeLayer, pendingLayer, nodeLayer);
  const rowsBox = el('div', { id: 'commits' });
  const hist = el('div', { class: 'history' }, graph, rowsBox);
  const sentinel = el('div', { class: 'sentinel muted', id: 'sentinel', text: 'Loading…' });
  view.replaceChildren(el('div', { class: 'toolbar' }, el('h2', { text: 'History of ' + db }), sel, search,
    el('span', { class: 'muted', text: 'HEAD: ' + refs.head.name + ' ' + short(refs.head.hash) })), results, hist, sentinel);
  let next = null, loading = false, done = false;
  const headHash = refs.head.hash;
  async function more() {
    if (loading || done) return;
    loading = true;
    try {
      const page = await api(dbPath(db, '/log' + qs({ rev, after: next || '', limit: 100 })));
      for (const c of page.commits) {
        const { lane, row, ended } = g.add(c);
        for (const e of ended) {
          edgeLayer.append(svg('path', { d: edgePath(e, e.toRow, e.toLane), stroke: laneColor(e.lane), 'data-from': e.from, 'data-to': e.to, class: 'edge' }));
        }
        const merge = c.parents.length > 1;
        nodeLayer.append(svg('circle', { cx: x(lane), cy: y(row), r: c.hash === headHash ? 6 : 4.5, fill: merge ? 'var(--panel)' : laneColor(lane),
          stroke: laneColor(lane), class: 'node' + (merge ? ' merge' : ''), 'data-hash': c.hash, 'data-parents': c.parents.join(',') }));
        rowsBox.append(el('div', { class: 'crow', 'data-hash': c.hash, onclick: () => go(db, 'commit/' + c.hash) },
          el('span', { class: 'msg' }, c.hash === headHash ? el('span', { class: 'pill head', text: 'HEAD' }) : null, refPills(c.refs), c.message),
          el('span', { class: 'author', text: c.author, title: c.email }),
          el('span', { class: 'date', text: c.date }),
          el('span', { class: 'hash', text: short(c.hash) })));
      }
      // Edges whose parents are on pages not loaded yet run to the bottom.
      pendingLayer.replaceChildren(...g.pending().map(e => svg('path', { d: edgePath(e, g.rows), stroke: laneColor(e.lane), 'stroke-dasharray': '3 3' })));
      const w = x(g.maxLane) + PAD;
      graph.setAttribute('width', w);
      graph.setAttribute('height', g.rows * ROW);
      rowsBox.style.paddingLeft = (w + 6) + 'px';
      next = page.next;
      if (!next) { done = true; sentinel.textContent = g.rows + ' commits'; sentinel.dataset.done = 'true'; }
    } catch (err) {
      sentinel.replaceChildren(errorBox(err));
      done = true;
    } finally { loading = false; }
  }
  await more();
  // For the console's benchmark: when the first page is drawn.
  performance.mark('verso-history-ready');
  const io = new IntersectionObserver(entries => { if (entries.some(e => e.isIntersecting)) more(); }, { rootMargin: '600px' });
  io.observe(sentinel);
}

// ---- a commit, and diffs -----------------------------------------------------

async function commitView(view, db, rest) {
  const hash = rest[0];
  const c = await api(dbPath(db, '/commit/' + encodeURIComponent(hash)));
  const meta = el('dl', { class: 'meta panel' },
    el('dt', { text: 'Commit' }), el('dd', { class: 'mono', id: 'commit-hash', text: c.hash }),
    el('dt', { text: 'Parents' }), el('dd', {}, c.parents.length ? c.parents.map(p => [el('a', { class: 'mono', href: '#/' + encodeURIComponent(db) + '/commit/' + p, text: short(p) }), ' ']) : el('span', { class: 'muted', text: 'none (the first commit)' })),
    el('dt', { text: 'Author' }), el('dd', { text: c.author + ' <' + c.author_email + '>, ' + c.author_date }),
    el('dt', { text: 'Committer' }), el('dd', { text: c.committer + ' <' + c.email + '>, ' + c.date }),
    c.refs || c.head ? [el('dt', { text: 'Refs' }), el('dd', {}, c.head ? el('span', { class: 'pill head', text: 'HEAD' }) : null, refPills(c.refs))] : null);
  const diffBox = el('div', { id: 'diffs' });
  view.replaceChildren(el('p', { class: 'message', text: c.message }), meta, diffBox);
  if (!c.diffs.length) { diffBox.append(el('p', { class: 'muted', text: 'The first commit has no parent to compare with.' })); return; }
  const tabs = el('div', { class: 'tabs' });
  const body = el('div', {});
  const show = i => {
    [...tabs.children].forEach((t, j) => t.classList.toggle('active', i === j));
    body.replaceChildren(changesView(db, c.diffs[i]));
  };
  c.diffs.forEach((d, i) => tabs.append(el('a', { onclick: () => show(i), text: 'Against parent ' + short(d.from) + (i === 0 ? ' (first)' : '') })));
  if (c.diffs.length > 1) diffBox.append(tabs);
  diffBox.append(body);
  show(0);
}

// changesView shows what changed from d.from to d.to: each table, with
// its rows page by page, and the events.
function changesView(db, d) {
  const box = el('div', { class: 'changes' });
  const ev = d.events || {};
  const evCount = Object.values(ev).reduce((a, b) => a + Number(b), 0);
  if (!d.tables.length && !evCount) { box.append(el('p', { class: 'muted', text: 'No changes.' })); return box; }
  box.append(el('h3', { text: d.tables.length + ' table' + (d.tables.length === 1 ? '' : 's') + ' changed' + (evCount ? ', ' + evCount + ' events' : '') }));
  for (const t of d.tables) {
    const name = t.to || t.from;
    const counts = t.data_change ? [el('span', { class: 'plus', text: ' +' + (t.rows_added || 0) }), el('span', { class: 'minus', text: ' −' + (t.rows_deleted || 0) }), ' ~' + (t.rows_modified || 0)] : [];
    const det = el('details', { class: 'table-diff', 'data-table': name },
      el('summary', {}, el('strong', { text: t.from && t.to && t.from !== t.to ? t.from + ' → ' + t.to : name }), ' ',
        el('span', { class: 'badge ' + t.diff_type, text: t.diff_type }), t.schema_change ? el('span', { class: 'badge', text: 'schema' }) : null, counts));
    let loaded = false;
    det.addEventListener('toggle', () => {
      if (!det.open || loaded) return;
      loaded = true;
      if (t.schema_change) {
        det.append(el('div', { class: 'schema' }, el('pre', { text: t.from_schema || '(none)' }), el('pre', { text: t.to_schema || '(none)' })));
      }
      if (t.data_change) det.append(rowDiff(db, d.from, d.to, name));
    });
    box.append(det);
  }
  if (evCount) {
    const det = el('details', { class: 'table-diff', 'data-table': 'dolt_events' },
      el('summary', {}, el('strong', { text: 'Events' }), ' ', Object.entries(ev).map(([k, v]) => el('span', { class: 'badge ' + k, text: v + ' ' + k }))));
    let loaded = false;
    det.addEventListener('toggle', () => { if (det.open && !loaded) { loaded = true; det.append(rowDiff(db, d.from, d.to, 'dolt_events')); } });
    box.append(det);
  }
  return box;
}

// rowDiff pages through a table's diff rows, one row per changed row:
// added rows green, removed red, and the changed cells of modified ones
// with their old and new values.
function rowDiff(db, from, to, table) {
  const box = el('div', { class: 'row-diff' });
  let offset = 0;
  const load = async () => {
    let r;
    try {
      r = await api(dbPath(db, '/diff' + qs({ from, to, table, offset, limit: 100 })));
    } catch (err) { box.replaceChildren(errorBox(err)); return; }
    const cols = r.columns;
    const names = cols.filter(c => c.startsWith('to_') && c !== 'to_commit' && c !== 'to_commit_date').map(c => c.slice(3));
    const ti = n => cols.indexOf('to_' + n), fi = n => cols.indexOf('from_' + n);
    const dt = cols.indexOf('diff_type');
    const head = el('tr', {}, el('th', { text: '' }), names.map(n => el('th', { text: n })));
    const rows = r.rows.map(row => {
      const kind = row[dt];
      const cells = names.map(n => {
        const a = fi(n) >= 0 ? row[fi(n)] : null, b = ti(n) >= 0 ? row[ti(n)] : null;
        if (kind === 'modified' && a !== b) {
          return el('td', { class: 'changed', 'data-col': n }, el('span', { class: 'old', text: a === null ? 'NULL' : a }), el('span', { class: 'new', text: b === null ? 'NULL' : b }));
        }
        const v = kind === 'removed' ? a : b;
        return v === null ? el('td', { class: 'null', text: 'NULL' }) : el('td', { text: v });
      });
      return el('tr', { class: kind }, el('td', {}, el('span', { class: 'badge ' + kind, text: kind })), cells);
    });
    const pager = el('div', { class: 'pager' },
      el('button', { class: 'ghost', disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - 100); load(); }, text: '← Previous' }),
      el('span', { class: 'muted', text: 'rows ' + (offset + 1) + '–' + (offset + r.rows.length) }),
      el('button', { class: 'ghost', disabled: !r.more, onclick: () => { offset += 100; load(); }, text: 'Next →' }));
    box.replaceChildren(el('div', { class: 'scroll' }, el('table', { class: 'data diff', 'data-table': table }, el('thead', {}, head), el('tbody', {}, rows))), pager);
  };
  box.append(el('p', { class: 'muted', text: 'Loading…' }));
  load();
  return box;
}

async function compareView(view, db, rest, params) {
  const from = el('input', { id: 'compare-from', value: params.get('from') || 'HEAD~1', placeholder: 'from: a branch, tag or commit' });
  const to = el('input', { id: 'compare-to', value: params.get('to') || 'HEAD', placeholder: 'to' });
  const out = el('div', {});
  const run = async () => {
    out.replaceChildren(el('p', { class: 'muted', text: 'Loading…' }));
    try {
      const d = await api(dbPath(db, '/compare' + qs({ from: from.value.trim(), to: to.value.trim() })));
      out.replaceChildren(changesView(db, d));
    } catch (err) { out.replaceChildren(errorBox(err)); }
  };
  view.replaceChildren(el('h2', { text: 'Compare two revisions' }),
    el('div', { class: 'toolbar' }, from, el('span', { text: '→' }), to,
      el('button', { onclick: () => go(db, 'compare', { from: from.value.trim(), to: to.value.trim() }), text: 'Compare' })), out);
  if (params.get('from') && params.get('to')) await run();
}

// ---- events -----------------------------------------------------------------

async function eventsView(view, db, rest, params) {
  const rev = params.get('rev') || '';
  const s = await api(dbPath(db, '/events/stats' + qs({ rev })));
  const ix = n => s.columns.indexOf(n);
  const total = s.rows.find(r => r[0] === null && r[1] === null);
  const cats = s.rows.filter(r => r[0] !== null && r[1] === null);
  const types = s.rows.filter(r => r[0] === null && r[1] !== null);
  const pairs = new Map(s.rows.filter(r => r[0] !== null && r[1] !== null).map(r => [r[0] + '\u0000' + r[1], r]));
  const card = (label, n, id) => el('div', { class: 'card panel' }, el('div', { class: 'muted', text: label }), el('div', { class: 'n', id, text: fmtNum(n) }));
  const read = stream => '#/' + encodeURIComponent(db) + '/read' + qs({ stream, rev });
  const tip = r => 'positions ' + r[ix('first_position')] + '–' + r[ix('last_position')] + '\nfirst ' + r[ix('first_created')] + '\nlast ' + r[ix('last_created')];
  const head = el('tr', {}, el('th', { text: 'category \\ event type' }), types.map(t => el('th', { class: 'num', title: tip(t) }, el('a', { href: read('$idx-et-' + t[1]), text: t[1] }))), el('th', { class: 'num', text: 'all types' }));
  const body = cats.map(c => el('tr', {},
    el('th', {}, el('a', { href: '#/' + encodeURIComponent(db) + '/streams' + qs({ category: c[0], rev }), text: c[0], title: 'The streams of ' + c[0] })),
    types.map(t => {
      const p = pairs.get(c[0] + '\u0000' + t[1]);
      return p
        ? el('td', { class: 'cell', 'data-category': c[0], 'data-type': t[1], 'data-count': p[ix('event_count')], title: tip(p) },
          el('a', { href: read('$idx-ce-' + c[0] + '&$idx-et-' + t[1]), text: fmtNum(p[ix('event_count')]) }))
        : el('td', { class: 'cell zero', 'data-category': c[0], 'data-type': t[1], 'data-count': '0', text: '·' });
    }),
    el('td', { class: 'cell', title: tip(c) }, el('a', { href: read('$idx-ce-' + c[0]), text: fmtNum(c[ix('event_count')]) }))));
  const times = el('table', { class: 'data', id: 'category-times' }, el('thead', {}, el('tr', {}, ['category', 'events', 'first position', 'last position', 'first written', 'last written'].map(h => el('th', { text: h })))),
    el('tbody', {}, cats.map(c => el('tr', {}, el('td', { text: c[0] }), el('td', { class: 'num', text: fmtNum(c[ix('event_count')]) }),
      el('td', { class: 'num', text: c[ix('first_position')] }), el('td', { class: 'num', text: c[ix('last_position')] }),
      el('td', { text: c[ix('first_created')] }), el('td', { text: c[ix('last_created')] })))));
  const revInput = el('input', { id: 'events-rev', value: rev, placeholder: 'revision (default: the working set)' });
  view.replaceChildren(el('div', {},
    el('div', { class: 'toolbar' }, el('h2', { text: 'Events of ' + db }), revInput,
      el('button', { class: 'ghost', onclick: () => go(db, 'events', { rev: revInput.value.trim() }), text: 'Show' }),
      el('a', { href: read('$all'), text: 'Read $all' })),
    el('div', { class: 'cards' }, card('events', total ? total[ix('event_count')] : 0, 'stat-events'), card('streams', s.streams, 'stat-streams'),
      card('categories', cats.length, 'stat-categories'), card('event types', types.length, 'stat-types')),
    cats.length ? [el('h3', { text: 'Events by category and type' }), el('div', { class: 'scroll' }, el('table', { class: 'data matrix', id: 'matrix' }, el('thead', {}, head), el('tbody', {}, body))),
      el('h3', { text: 'Categories' }), el('div', { class: 'scroll' }, times)]
      : el('p', { class: 'muted', text: 'The event log is empty.' })));
  performance.mark('verso-stats-ready');
}

async function streamsView(view, db, rest, params) {
  const category = params.get('category') || '', rev = params.get('rev') || '';
  let offset = Number(params.get('offset') || 0);
  const r = await api(dbPath(db, '/events/streams' + qs({ category, rev, offset, limit: 100 })));
  const si = r.columns.indexOf('stream_id');
  const table = dataTable(r.columns, r.rows, { id: 'streams' });
  table.querySelectorAll('tbody tr').forEach((tr, i) => {
    const td = tr.children[si];
    td.replaceChildren(el('a', { href: '#/' + encodeURIComponent(db) + '/read' + qs({ stream: r.rows[i][si], rev }), text: r.rows[i][si] }));
  });
  view.replaceChildren(el('h2', { text: category ? 'Streams of ' + category : 'Streams' }), table,
    el('div', { class: 'pager' },
      el('button', { class: 'ghost', disabled: offset === 0, onclick: () => go(db, 'streams', { category, rev, offset: Math.max(0, offset - 100) }), text: '← Previous' }),
      el('button', { class: 'ghost', disabled: !r.more, onclick: () => go(db, 'streams', { category, rev, offset: offset + 100 }), text: 'Next →' })));
}

async function readView(view, db, rest, params) {
  const stream = params.get('stream') || '$all', rev = params.get('rev') || '', from = params.get('from') || '0';
  const r = await api(dbPath(db, '/events/read' + qs({ stream, from, rev, limit: 100 })));
  view.replaceChildren(el('h2', { text: 'Reading ' + stream + ' from ' + from }), dataTable(r.columns, r.rows, { id: 'events' }),
    el('div', { class: 'pager' },
      el('button', { class: 'ghost', disabled: from === '0', onclick: () => go(db, 'read', { stream, rev }), text: '⇤ First page' }),
      el('button', { class: 'ghost', disabled: !r.next, onclick: () => go(db, 'read', { stream, rev, from: r.next }), text: 'Next page →' })));
}

// ---- the query box -----------------------------------------------------------

async function queryView(view, db) {
  const sqlBox = el('textarea', { id: 'sql', spellcheck: 'false', placeholder: 'SELECT * FROM dolt_log LIMIT 10' });
  sqlBox.value = sessionStorage.getItem('verso-sql') || 'SELECT * FROM dolt_log LIMIT 10';
  const rev = el('input', { id: 'query-rev', placeholder: 'revision (default: the default branch)' });
  const limit = el('select', { id: 'query-limit', 'aria-label': 'Rows a page' }, [50, 100, 500, 1000].map(n => el('option', { value: n, text: n + ' rows a page', selected: n === 100 })));
  const out = el('div', { id: 'query-result' });
  let offset = 0;
  const run = async (write) => {
    sessionStorage.setItem('verso-sql', sqlBox.value);
    const n = Number(limit.value);
    out.replaceChildren(el('p', { class: 'muted', text: 'Running…' }));
    let r;
    try {
      r = await api(dbPath(db, '/query'), { method: 'POST', body: { sql: sqlBox.value, rev: rev.value.trim(), offset, limit: n, write: !!write } });
    } catch (err) {
      out.replaceChildren(errorBox(err));
      return;
    }
    if (r.confirm) {
      if (window.confirm(r.confirm)) return run(true);
      out.replaceChildren(el('p', { class: 'muted', text: 'Not run.' }));
      return;
    }
    if (!r.columns) {
      out.replaceChildren(el('p', { id: 'query-ok', text: 'OK' + (r.affected !== null && r.affected !== undefined ? ', ' + r.affected + ' rows affected' : '') }));
      return;
    }
    out.replaceChildren(dataTable(r.columns, r.rows, { id: 'query-table' }),
      el('div', { class: 'pager' },
        el('button', { class: 'ghost', disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - n); run(write); }, text: '← Previous' }),
        el('span', { class: 'muted', id: 'query-count', text: r.rows.length ? 'rows ' + (offset + 1) + '–' + (offset + r.rows.length) : 'no rows' }),
        el('button', { class: 'ghost', disabled: !r.more, onclick: () => { offset += n; run(write); }, text: 'Next →' })));
  };
  const runButton = el('button', { id: 'run', onclick: () => { offset = 0; run(false); }, text: 'Run' });
  sqlBox.addEventListener('keydown', e => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { offset = 0; run(false); } });
  view.replaceChildren(el('h2', { text: 'Query ' + db }), sqlBox,
    el('div', { class: 'toolbar' }, runButton, rev, limit, el('span', { class: 'muted', text: 'Reads run in a read-only transaction; a write asks first. Ctrl+Enter runs.' })), out);
}

// ---- start -------------------------------------------------------------------

async function start() {
  const s = await api('/api/session');
  csrf = s.csrf;
  document.getElementById('who').textContent = s.user + '@' + s.host;
  databases = (await api('/api/databases')).databases;
  const dbSel = document.getElementById('db-select');
  dbSel.replaceChildren(...databases.map(d => el('option', { value: d, text: d })));
  dbSel.addEventListener('change', () => go(dbSel.value, 'history'));
  document.getElementById('logout').addEventListener('click', async () => {
    await api('/logout', { method: 'POST' }).catch(() => {});
    location.href = '/login';
  });
  document.getElementById('theme-toggle').addEventListener('click', () => {
    const t = document.documentElement.getAttribute('data-theme') === 'dark' ? 'light' : 'dark';
    document.documentElement.setAttribute('data-theme', t);
    localStorage.setItem('verso-theme', t);
  });
  window.addEventListener('hashchange', render);
  await render();
}

start().catch(err => { document.getElementById('view').replaceChildren(errorBox(err)); });
