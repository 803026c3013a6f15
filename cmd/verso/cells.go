package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/verso-db/verso"
)

// The cells of verso diff: a stored value as the SQL layer shows it in
// dolt_diff() (its Go value, printed), so the command prints what SQL
// would. DECIMAL gets its column's scale back (storage keeps 1.50 as 1.5),
// times print in UTC to the microsecond, TIME as [-]HH:MM:SS[.ffffff],
// ENUM and SET as their stored numbers, JSON as MySQL writes it (keys in
// order of length, then bytes; ", " and ": " between items).

// cellTime is how a date or time prints.
const cellTime = "2006-01-02 15:04:05.999999"

// valueCell returns the text of v, a value of column c.
func valueCell(c verso.Column, v verso.Value) string {
	switch v.Kind() {
	case verso.KindNull:
		return "NULL"
	case verso.KindInt:
		return strconv.FormatInt(v.AsInt(), 10)
	case verso.KindUint, verso.KindEnum, verso.KindSet:
		return strconv.FormatUint(v.AsUint(), 10)
	case verso.KindFloat32:
		return fmt.Sprint(float32(v.AsFloat64()))
	case verso.KindFloat64:
		return fmt.Sprint(v.AsFloat64())
	case verso.KindDecimal:
		return decimalCell(c, v)
	case verso.KindDate:
		y, m, d := v.AsDate()
		return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Format(cellTime)
	case verso.KindDatetime, verso.KindTimestamp:
		return v.AsTime().UTC().Format(cellTime)
	case verso.KindTime:
		return timeCell(v.AsInt())
	case verso.KindJSON:
		return jsonCell(v.AsBytes())
	case verso.KindString:
		return v.AsString()
	case verso.KindBytes:
		return string(v.AsBytes())
	}
	return v.String()
}

// decimalCell returns a decimal with the scale of its column's type
// (decimal(p,s)).
func decimalCell(c verso.Column, v verso.Value) string {
	text := v.AsDecimal().String()
	d, _, err := apd.NewFromString(text)
	if err != nil {
		return text
	}
	if scale := decimalScale(c.Type); d.Exponent > -scale {
		if _, err := apd.BaseContext.WithPrecision(200).Quantize(d, d, -scale); err != nil {
			return text
		}
	}
	return d.String()
}

// decimalScale returns the scale s of the type "decimal(p,s)" (0 if it
// has none).
func decimalScale(typ string) int32 {
	_, args, ok := strings.Cut(typ, "(")
	if !ok {
		return 0
	}
	_, s, ok := strings.Cut(strings.TrimSuffix(strings.TrimSpace(args), ")"), ",")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0
	}
	return int32(n)
}

// timeCell returns a TIME of us microseconds as [-]HH:MM:SS[.ffffff].
func timeCell(us int64) string {
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	s := fmt.Sprintf("%s%02d:%02d:%02d", sign, us/3_600_000_000, us/60_000_000%60, us/1_000_000%60)
	if f := us % 1_000_000; f > 0 {
		s += fmt.Sprintf(".%06d", f)
	}
	return s
}

// jsonCell returns a JSON document as MySQL writes it.
func jsonCell(doc []byte) string {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return string(doc)
	}
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		if v == float64(int64(v)) {
			b.WriteString(strconv.FormatInt(int64(v), 10))
		} else {
			b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		}
	case string:
		writeJSONString(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(keys[i]) != len(keys[j]) {
				return len(keys[i]) < len(keys[j])
			}
			return keys[i] < keys[j]
		})
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			writeJSON(b, v[k])
		}
		b.WriteByte('}')
	}
}

// writeJSONString writes s quoted, escaping control characters, '"' and
// '\' (other bytes, multi-byte UTF-8 included, pass unchanged).
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// eventColumns are dolt_events' columns.
func eventColumns() []string {
	return []string{"position", "stream_id", "event_number", "event_id", "event_type", "category", "created", "data", "metadata"}
}

// eventCells returns the cells of e in eventColumns' order.
func eventCells(e *verso.Event) []string {
	doc := func(b []byte) string {
		if len(b) == 0 {
			return "NULL"
		}
		return jsonCell(b)
	}
	return []string{
		strconv.FormatUint(uint64(e.Position), 10), e.Stream, strconv.FormatUint(uint64(e.Number), 10),
		e.ID.String(), e.Type, e.Category(), e.Created.UTC().Format(cellTime), doc(e.Data), doc(e.Metadata),
	}
}
