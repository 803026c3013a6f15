package sqlserver

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
)

// Scheduled events (CREATE EVENT), as Dolt keeps them: versioned with the
// database, rows of dolt_schemas of type "event". Each is an object chunk
// (verso.EncodeObject, kind "event") under "sqlevents/<name>", with the
// fields, in order:
//
//	0  CREATE EVENT statement as the engine prints it (String): dolt_schemas' fragment
//	1  sql_mode (String)
//	2  definer, `user`@`host` (String)
//	3  body: the statement(s) after DO (String)
//	4  status: ENABLE, DISABLE or DISABLE ON SLAVE (String)
//	5  comment (String)
//	6  EVERY interval, "" for AT (String)
//	7  time zone offset it was created in (String)
//	8  flags (Int): 1 ON COMPLETION PRESERVE, 2 AT (not EVERY), 4 ENDS
//	9  created, 10 last altered, 11 AT, 12 STARTS, 13 ENDS (Timestamps, UTC)
//
// When an event last ran is not versioned (it would change the working
// root at each run): the database keeps it in memory.
const sqlEventPrefix = commitgraph.SQLEventPrefix

var sqlEventKinds = []prolly.Kind{prolly.KindString, prolly.KindString, prolly.KindString, prolly.KindString,
	prolly.KindString, prolly.KindString, prolly.KindString, prolly.KindString, prolly.KindInt,
	prolly.KindTimestamp, prolly.KindTimestamp, prolly.KindTimestamp, prolly.KindTimestamp, prolly.KindTimestamp}

const (
	eventPreserve  = 1
	eventExecuteAt = 2
	eventHasEnds   = 4
)

var _ sql.EventDatabase = (*Database)(nil)

// encodeEvent returns the object chunk of the event ed.
func encodeEvent(ed sql.EventDefinition) []byte {
	var flags int64
	if ed.OnCompletionPreserve {
		flags |= eventPreserve
	}
	if ed.HasExecuteAt {
		flags |= eventExecuteAt
	}
	if ed.HasEnds {
		flags |= eventHasEnds
	}
	return verso.EncodeObject("event",
		prolly.String(ed.CreateEventStatement()), prolly.String(ed.SqlMode), prolly.String(ed.Definer),
		prolly.String(ed.EventBody), prolly.String(ed.Status), prolly.String(ed.Comment),
		prolly.String(ed.ExecuteEvery), prolly.String(ed.TimezoneOffset), prolly.Int(flags),
		prolly.Timestamp(ed.CreatedAt), prolly.Timestamp(ed.LastAltered), prolly.Timestamp(ed.ExecuteAt),
		prolly.Timestamp(ed.Starts), prolly.Timestamp(ed.Ends))
}

// eventDef returns the event an object holds.
func eventDef(o verso.Object) sql.EventDefinition {
	f := o.Fields
	flags := f[8].AsInt()
	return sql.EventDefinition{
		Name: o.Name, SqlMode: f[1].AsString(), Definer: f[2].AsString(), EventBody: f[3].AsString(),
		Status: f[4].AsString(), Comment: f[5].AsString(), ExecuteEvery: f[6].AsString(), TimezoneOffset: f[7].AsString(),
		OnCompletionPreserve: flags&eventPreserve != 0, HasExecuteAt: flags&eventExecuteAt != 0, HasEnds: flags&eventHasEnds != 0,
		CreatedAt: f[9].AsTime(), LastAltered: f[10].AsTime(), ExecuteAt: f[11].AsTime(), Starts: f[12].AsTime(), Ends: f[13].AsTime(),
	}
}

// GetEvent implements sql.EventDatabase.
func (db *Database) GetEvent(ctx *sql.Context, name string) (sql.EventDefinition, bool, error) {
	es, err := db.objects(ctx, sqlEventPrefix, "event", sqlEventKinds, name)
	if err != nil || len(es) == 0 {
		return sql.EventDefinition{}, false, err
	}
	return db.withLastExecuted(eventDef(es[0])), true, nil
}

// GetEvents implements sql.EventDatabase. The token is the address of
// the transaction's root: NeedsToReloadEvents compares it.
func (db *Database) GetEvents(ctx *sql.Context) ([]sql.EventDefinition, any, error) {
	es, err := db.objects(ctx, sqlEventPrefix, "event", sqlEventKinds, "")
	if err != nil {
		return nil, nil, err
	}
	out := make([]sql.EventDefinition, len(es))
	for i, o := range es {
		out[i] = db.withLastExecuted(eventDef(o))
	}
	token, err := db.eventsToken(ctx)
	return out, token, err
}

// eventsToken names the events of the database as the session sees them
// now: the addresses of their entries.
func (db *Database) eventsToken(ctx *sql.Context) (string, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return "", err
	}
	ents, err := d.Root().Entries(ctx, sqlEventPrefix)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range ents {
		b.WriteString(e.Name)
		b.WriteString(e.Addr.String())
	}
	return b.String(), nil
}

// SaveEvent implements sql.EventDatabase.
func (db *Database) SaveEvent(ctx *sql.Context, ed sql.EventDefinition) (bool, error) {
	if _, ok, err := db.GetEvent(ctx, ed.Name); err != nil {
		return false, err
	} else if ok {
		return false, sql.ErrEventAlreadyExists.New(ed.Name)
	}
	if err := db.putObject(ctx, sqlEventPrefix, ed.Name, encodeEvent(ed)); err != nil {
		return false, err
	}
	return ed.Status == sql.EventStatus_Enable.String(), nil
}

// DropEvent implements sql.EventDatabase.
func (db *Database) DropEvent(ctx *sql.Context, name string) error {
	ok, err := db.dropObject(ctx, sqlEventPrefix, name)
	if err == nil && !ok {
		err = sql.ErrEventDoesNotExist.New(name)
	}
	return err
}

// UpdateEvent implements sql.EventDatabase (ALTER EVENT, RENAME TO).
func (db *Database) UpdateEvent(ctx *sql.Context, originalName string, ed sql.EventDefinition) (bool, error) {
	if _, ok, err := db.GetEvent(ctx, originalName); err != nil {
		return false, err
	} else if !ok {
		return false, sql.ErrEventDoesNotExist.New(originalName)
	}
	if !strings.EqualFold(originalName, ed.Name) {
		if _, ok, err := db.GetEvent(ctx, ed.Name); err != nil {
			return false, err
		} else if ok {
			return false, sql.ErrEventAlreadyExists.New(ed.Name)
		}
	}
	if _, err := db.dropObject(ctx, sqlEventPrefix, originalName); err != nil {
		return false, err
	}
	if err := db.putObject(ctx, sqlEventPrefix, ed.Name, encodeEvent(ed)); err != nil {
		return false, err
	}
	return ed.Status == sql.EventStatus_Enable.String(), nil
}

// UpdateLastExecuted implements sql.EventDatabase: the time is kept in
// memory, not versioned.
func (db *Database) UpdateLastExecuted(ctx *sql.Context, name string, at time.Time) error {
	if _, ok, err := db.GetEvent(ctx, name); err != nil {
		return err
	} else if !ok {
		return sql.ErrEventDoesNotExist.New(name)
	}
	db.st.eventsMu.Lock()
	defer db.st.eventsMu.Unlock()
	if db.st.lastExecuted == nil {
		db.st.lastExecuted = map[string]time.Time{}
	}
	db.st.lastExecuted[db.branch+"\x00"+strings.ToLower(name)] = at
	return nil
}

// withLastExecuted returns ed with the time it last ran, if it did.
func (db *Database) withLastExecuted(ed sql.EventDefinition) sql.EventDefinition {
	db.st.eventsMu.Lock()
	defer db.st.eventsMu.Unlock()
	if t, ok := db.st.lastExecuted[db.branch+"\x00"+strings.ToLower(ed.Name)]; ok {
		ed.LastExecuted = t
	}
	return ed
}

// NeedsToReloadEvents implements sql.EventDatabase: events change outside
// CREATE, ALTER and DROP EVENT too (dolt_reset, dolt_checkout, a merge).
func (db *Database) NeedsToReloadEvents(ctx *sql.Context, token any) (bool, error) {
	cur, err := db.eventsToken(ctx)
	if err != nil {
		return false, err
	}
	old, _ := token.(string)
	return old != cur, nil
}
