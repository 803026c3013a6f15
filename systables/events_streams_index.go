package systables

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"

	"github.com/verso-db/verso/eventindex"
)

// dolt_streams is keyed by stream_id: stream_id = 'x' and stream_id IN
// (...) read those streams' records (one lookup each in the log's stream
// records) instead of every stream's.

type streamIDIndex struct{ db string }

var _ sql.Index = streamIDIndex{}

func (ix streamIDIndex) ID() string                            { return "PRIMARY" }
func (ix streamIDIndex) Database() string                      { return ix.db }
func (ix streamIDIndex) Table() string                         { return StreamsName }
func (ix streamIDIndex) Expressions() []string                 { return []string{StreamsName + ".stream_id"} }
func (ix streamIDIndex) IsUnique() bool                        { return true }
func (ix streamIDIndex) IsSpatial() bool                       { return false }
func (ix streamIDIndex) IsFullText() bool                      { return false }
func (ix streamIDIndex) IsVector() bool                        { return false }
func (ix streamIDIndex) Comment() string                       { return "" }
func (ix streamIDIndex) IndexType() string                     { return "BTREE" }
func (ix streamIDIndex) IsGenerated() bool                     { return false }
func (ix streamIDIndex) PrefixLengths() []uint16               { return nil }
func (ix streamIDIndex) CanSupportOrderBy(sql.Expression) bool { return false }

func (ix streamIDIndex) ColumnExpressionTypes(*sql.Context) []sql.ColumnExpressionType {
	return []sql.ColumnExpressionType{{Expression: ix.Expressions()[0], Type: EventNameType}}
}

func (ix streamIDIndex) CoversColumns(cols []string) bool {
	return len(cols) == 1 && strings.EqualFold(cols[0], "stream_id")
}

func (ix streamIDIndex) CanSupport(_ *sql.Context, ranges ...sql.Range) bool {
	_, err := streamPoints(ranges)
	return err == nil
}

// streamPoints returns the stream ids of point ranges (a NULL point or
// an empty range names none).
func streamPoints(ranges []sql.Range) ([]string, error) {
	var out []string
	for _, r := range ranges {
		mr, ok := r.(sql.MySQLRange)
		if !ok || len(mr) != 1 {
			return nil, fmt.Errorf("verso: dolt_streams: range %v is not on stream_id", r)
		}
		var q eventQuery
		if err := applyRange(&q, colStream, mr[0]); err != nil {
			return nil, err
		}
		if !q.none && q.f.Stream != "" {
			out = append(out, q.f.Stream)
		}
	}
	return out, nil
}

// streamsLookup is the partition of a lookup: the streams it names.
type streamsLookup struct{ streams []string }

func (streamsLookup) Key() []byte { return []byte("streams") }

var (
	_ sql.IndexAddressableTable = (*infoTable)(nil)
	_ sql.IndexedTable          = (*infoTable)(nil)
	_ sql.IndexSearchableTable  = (*infoTable)(nil)
)

// GetIndexes implements sql.IndexAddressable: dolt_streams' stream_id.
func (t *infoTable) GetIndexes(*sql.Context) ([]sql.Index, error) {
	if t.name != StreamsName {
		return nil, nil
	}
	return []sql.Index{streamIDIndex{db: t.src.v.DB}}, nil
}

func (t *infoTable) PreciseMatch() bool { return true }

func (t *infoTable) IndexedAccess(_ *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	if _, ok := lookup.Index.(streamIDIndex); !ok {
		return nil
	}
	if _, err := streamPoints(lookup.Ranges.ToRanges()); err != nil {
		return nil
	}
	return t
}

func (t *infoTable) LookupPartitions(_ *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	streams, err := streamPoints(lookup.Ranges.ToRanges())
	if err != nil {
		return nil, err
	}
	return sql.PartitionsToPartitionIter(streamsLookup{streams}), nil
}

func (t *infoTable) SkipIndexCosting() bool { return false }

// LookupForExpressions implements sql.IndexSearchableTable: stream_id =
// 'x' or stream_id IN ('x', ...) on dolt_streams.
func (t *infoTable) LookupForExpressions(ctx *sql.Context, exprs ...sql.Expression) (sql.IndexLookup, *sql.FuncDepSet, sql.Expression, bool, error) {
	if t.name != StreamsName {
		return sql.IndexLookup{}, nil, nil, false, nil
	}
	for i, e := range exprs {
		col, vals, op, ok := literalCondition(ctx, e)
		if !ok || col != colStream || op != "=" {
			continue
		}
		var ranges sql.MySQLRangeCollection
		for _, v := range vals {
			s, ok := rangeString(v)
			if !ok {
				return sql.IndexLookup{}, nil, nil, false, nil
			}
			ranges = append(ranges, sql.MySQLRange{sql.ClosedRangeColumnExpr(s, s, EventNameType)})
		}
		ix := streamIDIndex{db: t.src.v.DB}
		rest := append(append([]sql.Expression(nil), exprs[:i]...), exprs[i+1:]...)
		return sql.NewIndexLookup(ix, ranges, len(ranges) == 1, false, false, false), nil, expression.JoinAnd(rest...), true, nil
	}
	return sql.IndexLookup{}, nil, nil, false, nil
}

// lookupStreamRows returns the rows of the named streams that have a
// record.
func lookupStreamRows(ctx *sql.Context, l eventindex.Log, streams []string) ([]sql.Row, error) {
	var out []sql.Row
	seen := map[string]bool{}
	for _, s := range streams {
		if seen[s] {
			continue
		}
		seen[s] = true
		info, err := l.Stream(ctx, s)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, streamRow(info))
	}
	return out, nil
}
