package sqlserver

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// Schema objects other than tables (views, triggers) are one chunk each,
// named in the root value under their kind's prefix: "views/<name>",
// "triggers/<name>", "procedures/<name>", "foreignkeys/<name>". Names compare case-insensitively.
//
// Object chunk format, version 1:
//
//	"VRSOOBJ" (7 bytes, magic) | 0x01 (format version) |
//	prolly value tuple (EncodeTuple): the kind as text ("view" or
//	"trigger"), then the kind's fields:
//	  view:    SELECT text, CREATE VIEW statement, sql_mode (strings)
//	  trigger: CREATE TRIGGER statement, sql_mode (strings), created (Timestamp)
//	  procedure: CREATE PROCEDURE statement, sql_mode (strings), created,
//	           modified (Timestamps)
//	  foreignkey: see foreignkeys.go
const (
	viewPrefix      = commitgraph.ViewPrefix
	triggerPrefix   = commitgraph.TriggerPrefix
	procedurePrefix = commitgraph.ProcedurePrefix
	objectMagic     = "VRSOOBJ"
	objectVersion   = 1
)

var (
	_ sql.ViewDatabase            = (*Database)(nil)
	_ sql.TriggerDatabase         = (*Database)(nil)
	_ sql.StoredProcedureDatabase = (*Database)(nil)
)

// object is a decoded schema object chunk.
type object struct {
	name string
	kind string
	vals []prolly.Value
}

func encodeObject(kind string, vals ...prolly.Value) []byte {
	b := append([]byte(objectMagic), objectVersion)
	return prolly.EncodeTuple(b, append([]prolly.Value{prolly.String(kind)}, vals...)...)
}

func decodeObject(name, kind string, kinds []prolly.Kind, b []byte) (object, error) {
	bad := func(why string) (object, error) {
		return object{}, fmt.Errorf("%w: %s %q: %s", tables.ErrCorrupt, kind, name, why)
	}
	if len(b) < len(objectMagic)+1 || !bytes.Equal(b[:len(objectMagic)], []byte(objectMagic)) {
		return bad("not an object chunk")
	}
	if b[len(objectMagic)] != objectVersion {
		return bad(fmt.Sprintf("unknown format version %d", b[len(objectMagic)]))
	}
	vals, err := prolly.DecodeTuple(b[len(objectMagic)+1:])
	if err != nil {
		return bad(err.Error())
	}
	if len(vals) != 1+len(kinds) || vals[0].Kind() != prolly.KindString || vals[0].AsString() != kind {
		return bad("wrong kind or number of fields")
	}
	for i, k := range kinds {
		if vals[1+i].Kind() != k {
			return bad(fmt.Sprintf("field %d has the wrong kind", i+1))
		}
	}
	return object{name: name, kind: kind, vals: vals[1:]}, nil
}

// findObject returns the exact name and object chunk entry under prefix.
func findObject(ctx *sql.Context, root commitgraph.RootValue, prefix, name string) (commitgraph.RootEntry, bool, error) {
	ents, err := root.Entries(ctx, prefix)
	if err != nil {
		return commitgraph.RootEntry{}, false, err
	}
	for _, e := range ents {
		if strings.EqualFold(strings.TrimPrefix(e.Name, prefix), name) {
			return e, true, nil
		}
	}
	return commitgraph.RootEntry{}, false, nil
}

// putObject stores an object chunk under prefix+name in the transaction.
func (db *Database) putObject(ctx *sql.Context, prefix, name string, chunk []byte) error {
	d, err := db.tx(ctx)
	if err != nil {
		return err
	}
	addr, err := db.st.graph.Store().Put(ctx, chunk)
	if err != nil {
		return err
	}
	root, err := d.Root().Edit(ctx, commitgraph.RootEdit{Name: prefix + name, Addr: addr})
	if err != nil {
		return err
	}
	d.SetRoot(root)
	return nil
}

// dropObject removes prefix+name (matched case-insensitively), reporting
// whether it was there.
func (db *Database) dropObject(ctx *sql.Context, prefix, name string) (bool, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return false, err
	}
	e, ok, err := findObject(ctx, d.Root(), prefix, name)
	if err != nil || !ok {
		return false, err
	}
	root, err := d.Root().Edit(ctx, commitgraph.RootEdit{Name: e.Name, Delete: true})
	if err != nil {
		return false, err
	}
	d.SetRoot(root)
	return true, nil
}

// objects reads the objects under prefix (one, if name is not "").
func (db *Database) objects(ctx *sql.Context, prefix, kind string, kinds []prolly.Kind, name string) ([]object, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	var ents []commitgraph.RootEntry
	if name != "" {
		e, ok, err := findObject(ctx, d.Root(), prefix, name)
		if err != nil || !ok {
			return nil, err
		}
		ents = []commitgraph.RootEntry{e}
	} else if ents, err = d.Root().Entries(ctx, prefix); err != nil {
		return nil, err
	}
	var out []object
	for _, e := range ents {
		b, err := db.st.graph.Store().Get(ctx, e.Addr)
		if err != nil {
			return nil, err
		}
		o, err := decodeObject(strings.TrimPrefix(e.Name, prefix), kind, kinds, b)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

var viewKinds = []prolly.Kind{prolly.KindString, prolly.KindString, prolly.KindString}

func viewDef(o object) sql.ViewDefinition {
	return sql.ViewDefinition{Name: o.name, TextDefinition: o.vals[0].AsString(),
		CreateViewStatement: o.vals[1].AsString(), SqlMode: o.vals[2].AsString()}
}

// CreateView implements sql.ViewDatabase.
func (db *Database) CreateView(ctx *sql.Context, name, selectStatement, createViewStmt string) error {
	if vs, err := db.objects(ctx, viewPrefix, "view", viewKinds, name); err != nil {
		return err
	} else if len(vs) > 0 {
		return sql.ErrExistingView.New(db.Name(), name)
	}
	mode := sql.LoadSqlMode(ctx).String()
	return db.putObject(ctx, viewPrefix, name, encodeObject("view",
		prolly.String(selectStatement), prolly.String(createViewStmt), prolly.String(mode)))
}

// DropView implements sql.ViewDatabase.
func (db *Database) DropView(ctx *sql.Context, name string) error {
	ok, err := db.dropObject(ctx, viewPrefix, name)
	if err == nil && !ok {
		err = sql.ErrViewDoesNotExist.New(db.Name(), name)
	}
	return err
}

// GetViewDefinition implements sql.ViewDatabase.
func (db *Database) GetViewDefinition(ctx *sql.Context, name string) (sql.ViewDefinition, bool, error) {
	vs, err := db.objects(ctx, viewPrefix, "view", viewKinds, name)
	if err != nil || len(vs) == 0 {
		return sql.ViewDefinition{}, false, err
	}
	return viewDef(vs[0]), true, nil
}

// AllViews implements sql.ViewDatabase.
func (db *Database) AllViews(ctx *sql.Context) ([]sql.ViewDefinition, error) {
	vs, err := db.objects(ctx, viewPrefix, "view", viewKinds, "")
	if err != nil {
		return nil, err
	}
	out := make([]sql.ViewDefinition, len(vs))
	for i, o := range vs {
		out[i] = viewDef(o)
	}
	return out, nil
}

var triggerKinds = []prolly.Kind{prolly.KindString, prolly.KindString, prolly.KindTimestamp}

// GetTriggers implements sql.TriggerDatabase, in order of creation.
func (db *Database) GetTriggers(ctx *sql.Context) ([]sql.TriggerDefinition, error) {
	ts, err := db.objects(ctx, triggerPrefix, "trigger", triggerKinds, "")
	if err != nil {
		return nil, err
	}
	out := make([]sql.TriggerDefinition, len(ts))
	for i, o := range ts {
		out[i] = sql.TriggerDefinition{Name: o.name, CreateStatement: o.vals[0].AsString(),
			SqlMode: o.vals[1].AsString(), CreatedAt: o.vals[2].AsTime()}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// CreateTrigger implements sql.TriggerDatabase.
func (db *Database) CreateTrigger(ctx *sql.Context, def sql.TriggerDefinition) error {
	created := def.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	// Triggers are ordered by creation time: keep each one after the last.
	if ts, err := db.GetTriggers(ctx); err != nil {
		return err
	} else if n := len(ts); n > 0 && !created.After(ts[n-1].CreatedAt) {
		created = ts[n-1].CreatedAt.Add(time.Microsecond)
	}
	mode := def.SqlMode
	if mode == "" {
		mode = sql.LoadSqlMode(ctx).String()
	}
	return db.putObject(ctx, triggerPrefix, def.Name, encodeObject("trigger",
		prolly.String(def.CreateStatement), prolly.String(mode), prolly.Timestamp(created)))
}

// DropTrigger implements sql.TriggerDatabase.
func (db *Database) DropTrigger(ctx *sql.Context, name string) error {
	ok, err := db.dropObject(ctx, triggerPrefix, name)
	if err == nil && !ok {
		err = sql.ErrTriggerDoesNotExist.New(name)
	}
	return err
}

var procedureKinds = []prolly.Kind{prolly.KindString, prolly.KindString, prolly.KindTimestamp, prolly.KindTimestamp}

func procedure(o object) sql.StoredProcedureDetails {
	return sql.StoredProcedureDetails{Name: o.name, CreateStatement: o.vals[0].AsString(), SqlMode: o.vals[1].AsString(),
		CreatedAt: o.vals[2].AsTime(), ModifiedAt: o.vals[3].AsTime()}
}

// GetStoredProcedure implements sql.StoredProcedureDatabase.
func (db *Database) GetStoredProcedure(ctx *sql.Context, name string) (sql.StoredProcedureDetails, bool, error) {
	ps, err := db.objects(ctx, procedurePrefix, "procedure", procedureKinds, name)
	if err != nil || len(ps) == 0 {
		return sql.StoredProcedureDetails{}, false, err
	}
	return procedure(ps[0]), true, nil
}

// GetStoredProcedures implements sql.StoredProcedureDatabase.
func (db *Database) GetStoredProcedures(ctx *sql.Context) ([]sql.StoredProcedureDetails, error) {
	ps, err := db.objects(ctx, procedurePrefix, "procedure", procedureKinds, "")
	if err != nil {
		return nil, err
	}
	out := make([]sql.StoredProcedureDetails, len(ps))
	for i, o := range ps {
		out[i] = procedure(o)
	}
	return out, nil
}

// SaveStoredProcedure implements sql.StoredProcedureDatabase.
func (db *Database) SaveStoredProcedure(ctx *sql.Context, p sql.StoredProcedureDetails) error {
	if _, ok, err := db.GetStoredProcedure(ctx, p.Name); err != nil {
		return err
	} else if ok {
		return sql.ErrStoredProcedureAlreadyExists.New(p.Name)
	}
	now := time.Now()
	if p.CreatedAt.IsZero() {
		p.CreatedAt = now
	}
	if p.ModifiedAt.IsZero() {
		p.ModifiedAt = p.CreatedAt
	}
	if p.SqlMode == "" {
		p.SqlMode = sql.LoadSqlMode(ctx).String()
	}
	return db.putObject(ctx, procedurePrefix, p.Name, encodeObject("procedure",
		prolly.String(p.CreateStatement), prolly.String(p.SqlMode), prolly.Timestamp(p.CreatedAt), prolly.Timestamp(p.ModifiedAt)))
}

// DropStoredProcedure implements sql.StoredProcedureDatabase.
func (db *Database) DropStoredProcedure(ctx *sql.Context, name string) error {
	ok, err := db.dropObject(ctx, procedurePrefix, name)
	if err == nil && !ok {
		err = sql.ErrStoredProcedureDoesNotExist.New(name)
	}
	return err
}
