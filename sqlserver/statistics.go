package sqlserver

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// The statistics dolt_statistics shows: what ANALYZE TABLE measured of
// each index of a table, exactly (a scan of the table), as one histogram
// bucket per index: its rows, distinct keys, keys holding a NULL, greatest
// key and how many rows hold it, and when. They are the provider's, in
// memory: a restart forgets them, and they are not versioned. The
// engine's own statistics, which its planner costs with, are kept as
// before (statsRecorder passes every call through).

// indexStats is what ANALYZE TABLE measured of one index.
type indexStats struct {
	index                string
	rows, distinct, nuls uint64
	columns, types       []string
	upper                string
	upperCount           uint64
	at                   time.Time
}

// statsStore holds the provider's measures, by lower-case database and
// table name.
type statsStore struct {
	mu     sync.Mutex
	tables map[string]map[string][]indexStats
}

func (s *statsStore) put(db, table string, st []indexStats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tables == nil {
		s.tables = map[string]map[string][]indexStats{}
	}
	db, table = strings.ToLower(db), strings.ToLower(table)
	if s.tables[db] == nil {
		s.tables[db] = map[string][]indexStats{}
	}
	s.tables[db][table] = st
}

// get returns the measures of db's tables, by table name.
func (s *statsStore) get(db string) map[string][]indexStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]indexStats{}
	for t, st := range s.tables[strings.ToLower(db)] {
		out[t] = st
	}
	return out
}

// statsRecorder is an engine's statistics provider: the engine's own,
// with each ANALYZE TABLE measured for dolt_statistics too.
type statsRecorder struct {
	sql.StatsProvider
	store *statsStore
	mu    sync.Mutex // the engine's provider is not safe for concurrent use
}

var _ sql.StatsProvider = (*statsRecorder)(nil)

// statsProvider returns the statistics provider of an engine over p whose
// own is inner.
func (p *Provider) statsProvider(inner sql.StatsProvider) sql.StatsProvider {
	return &statsRecorder{StatsProvider: inner, store: &p.stats}
}

// AnalyzeTable implements sql.StatsProvider.
func (r *statsRecorder) AnalyzeTable(ctx *sql.Context, table sql.Table, db string) error {
	r.mu.Lock()
	err := r.StatsProvider.AnalyzeTable(ctx, table, db)
	r.mu.Unlock()
	if err != nil {
		return err
	}
	st, err := measureIndexes(ctx, table)
	if err != nil {
		return err
	}
	r.store.put(db, table.Name(), st)
	return nil
}

func (r *statsRecorder) GetTableStats(ctx *sql.Context, sch, db string, table sql.Table) ([]sql.Statistic, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.StatsProvider.GetTableStats(ctx, sch, db, table)
}

func (r *statsRecorder) SetStats(ctx *sql.Context, s sql.Statistic) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.StatsProvider.SetStats(ctx, s)
}

func (r *statsRecorder) GetStats(ctx *sql.Context, q sql.StatQualifier, cols []string) (sql.Statistic, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.StatsProvider.GetStats(ctx, q, cols)
}

func (r *statsRecorder) DropStats(ctx *sql.Context, q sql.StatQualifier, cols []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.StatsProvider.DropStats(ctx, q, cols)
}

func (r *statsRecorder) DropDbStats(ctx *sql.Context, sch, db string, flush bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.StatsProvider.DropDbStats(ctx, sch, db, flush)
}

func (r *statsRecorder) RowCount(ctx *sql.Context, sch, db string, table sql.Table) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.StatsProvider.RowCount(ctx, sch, db, table)
}

func (r *statsRecorder) DataLength(ctx *sql.Context, sch, db string, table sql.Table) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.StatsProvider.DataLength(ctx, sch, db, table)
}

// measureIndexes scans table once and measures each of its indexes.
func measureIndexes(ctx *sql.Context, table sql.Table) ([]indexStats, error) {
	iat, ok := table.(sql.IndexAddressableTable)
	if !ok {
		return nil, nil
	}
	idxs, err := iat.GetIndexes(ctx)
	if err != nil {
		return nil, err
	}
	sch := table.Schema(ctx)
	rows, err := allRows(ctx, table)
	if err != nil {
		return nil, err
	}
	at := time.Now().UTC().Truncate(time.Second)
	var out []indexStats
	for _, idx := range idxs {
		var ords []int
		st := indexStats{index: strings.ToLower(idx.ID()), at: at, rows: uint64(len(rows))}
		for _, e := range idx.Expressions() {
			name := e[strings.LastIndex(e, ".")+1:]
			i := sch.IndexOfColName(name)
			if i < 0 {
				return nil, fmt.Errorf("index %s: no column %q", idx.ID(), name)
			}
			ords = append(ords, i)
			st.columns = append(st.columns, strings.ToLower(sch[i].Name))
			st.types = append(st.types, sch[i].Type.String())
		}
		keys := make([]sql.Row, 0, len(rows))
		for _, r := range rows {
			k := make(sql.Row, len(ords))
			hasNull := false
			for j, o := range ords {
				k[j] = r[o]
				hasNull = hasNull || r[o] == nil
			}
			if hasNull {
				st.nuls++
			}
			keys = append(keys, k)
		}
		var sortErr error
		compare := func(a, b sql.Row) int {
			for j, o := range ords {
				// NULL sorts first, as in an index.
				switch {
				case a[j] == nil && b[j] == nil:
					continue
				case a[j] == nil:
					return -1
				case b[j] == nil:
					return 1
				}
				c, err := sch[o].Type.Compare(ctx, a[j], b[j])
				if err != nil && sortErr == nil {
					sortErr = err
				}
				if c != 0 {
					return c
				}
			}
			return 0
		}
		sort.SliceStable(keys, func(i, j int) bool { return compare(keys[i], keys[j]) < 0 })
		if sortErr != nil {
			return nil, sortErr
		}
		for i := range keys {
			if i == 0 || compare(keys[i-1], keys[i]) != 0 {
				st.distinct++
				st.upperCount = 0
			}
			st.upperCount++
		}
		if len(keys) > 0 {
			st.upper, err = keyText(ctx, sch, ords, keys[len(keys)-1])
			if err != nil {
				return nil, err
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// keyText writes an index key as text, its values "," between them.
func keyText(ctx *sql.Context, sch sql.Schema, ords []int, key sql.Row) (string, error) {
	parts := make([]string, len(key))
	for j, v := range key {
		if v == nil {
			parts[j] = "NULL"
			continue
		}
		s, err := sch[ords[j]].Type.SQL(ctx, nil, v)
		if err != nil {
			return "", err
		}
		parts[j] = s.ToString()
	}
	return strings.Join(parts, ","), nil
}

// statisticsRows returns dolt_statistics' rows of the database db: the
// measured indexes of the tables its working root still holds, by table
// and index.
func (p *Provider) statisticsRows(ctx *sql.Context, db *Database) ([]sql.Row, error) {
	measured := p.stats.get(db.name)
	names := make([]string, 0, len(measured))
	for t := range measured {
		names = append(names, t)
	}
	sort.Strings(names)
	var out []sql.Row
	for _, t := range names {
		if _, ok, err := db.GetTableInsensitive(ctx, t); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		st := measured[t]
		sort.Slice(st, func(i, j int) bool { return st[i].index < st[j].index })
		for _, s := range st {
			out = append(out, sql.Row{db.name, t, s.index, s.rows, s.distinct, s.nuls,
				strings.Join(s.columns, ","), strings.Join(s.types, ","), s.upper, s.upperCount, s.at, "", "", "", "", ""})
		}
	}
	return out, nil
}
