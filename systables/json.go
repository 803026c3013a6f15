package systables

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// JSON returns stored JSON text b as the engine's JSON value, passing its
// bytes through to clients unparsed (a MySQL client gets b as stored) and
// parsing them only when an expression asks for their structure, at most
// once per value. b must be valid JSON and must not change while the value
// is in use.
//
// It does what the engine's lazy document does in one allocation instead
// of five: a read of the event log returns two JSON values per event, and
// building them was a tenth of a wire read's CPU.
func JSON(b []byte) sql.JSONWrapper {
	return &rawJSON{b: b}
}

// rawJSON is JSON's value: the stored text and, once asked for, its
// decoded structure.
type rawJSON struct {
	b    []byte
	once sync.Once
	v    any
	err  error
}

var (
	_ sql.JSONWrapper = (*rawJSON)(nil)
	_ types.JSONBytes = (*rawJSON)(nil)
	_ fmt.Stringer    = (*rawJSON)(nil)
	_ driver.Valuer   = (*rawJSON)(nil)
)

// ToInterface implements sql.JSONWrapper: the decoded structure, shared by
// every caller of this value (the engine copies before it modifies, see
// Clone).
func (j *rawJSON) ToInterface(context.Context) (any, error) {
	j.once.Do(func() {
		var v any
		if err := json.Unmarshal(j.b, &v); err != nil {
			j.err = err
			return
		}
		j.v = v
	})
	return j.v, j.err
}

// Clone implements sql.JSONWrapper: a value over the same bytes with its
// own decoded structure, which the engine's JSON functions may modify.
func (j *rawJSON) Clone(context.Context) sql.JSONWrapper {
	return &rawJSON{b: j.b}
}

// GetBytes implements types.JSONBytes: the stored text, which the engine
// sends to clients as it is.
func (j *rawJSON) GetBytes(context.Context) ([]byte, error) {
	return j.b, nil
}

// String implements fmt.Stringer: the value as MySQL prints JSON.
func (j *rawJSON) String() string {
	s, err := types.JsonToMySqlString(context.Background(), j)
	if err != nil {
		return fmt.Sprintf("error while stringifying JSON: %s", err.Error())
	}
	return s
}

// Value implements driver.Valuer.
func (j *rawJSON) Value() (driver.Value, error) {
	return types.JsonToMySqlString(context.Background(), j)
}
