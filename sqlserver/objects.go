package sqlserver

import (
	"fmt"
	"sort"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/prolly"
)

// Schema objects other than tables (views, triggers, stored procedures)
// are object chunks of the engine (verso.EncodeObject: its objects.go
// owns the format), named in the root value under their kind's prefix:
// "views/<name>", "triggers/<name>", "procedures/<name>", and
// "sqlevents/<name>" (sqlevents.go), "foreignkeys/<name>"
// (foreignkeys.go). dolt_schemas and dolt_procedures show them as rows
// (ObjectRows). Their fields:
//
//	view:      SELECT text, CREATE VIEW statement, sql_mode (strings)
//	trigger:   CREATE TRIGGER statement, sql_mode (strings), created (Timestamp)
//	procedure: CREATE PROCEDURE statement, sql_mode (strings), created,
//	           modified (Timestamps)
const (
	viewPrefix      = commitgraph.ViewPrefix
	triggerPrefix   = commitgraph.TriggerPrefix
	procedurePrefix = commitgraph.ProcedurePrefix
)

var (
	_ sql.ViewDatabase            = (*Database)(nil)
	_ sql.TriggerDatabase         = (*Database)(nil)
	_ sql.StoredProcedureDatabase = (*Database)(nil)
)

// putObject stores an object chunk under prefix+name in the transaction.
func (db *Database) putObject(ctx *sql.Context, prefix, name string, chunk []byte) error {
	d, err := db.tx(ctx)
	if err != nil {
		return err
	}
	return d.PutObject(ctx, prefix, name, chunk)
}

// dropObject removes prefix+name (matched case-insensitively), reporting
// whether it was there.
func (db *Database) dropObject(ctx *sql.Context, prefix, name string) (bool, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return false, err
	}
	return d.DropObject(ctx, prefix, name)
}

// objects reads the objects under prefix (one, if name is not "").
func (db *Database) objects(ctx *sql.Context, prefix, kind string, kinds []prolly.Kind, name string) ([]verso.Object, error) {
	d, err := db.tx(ctx)
	if err != nil {
		return nil, err
	}
	return d.Objects(ctx, prefix, kind, kinds, name)
}

var viewKinds = []prolly.Kind{prolly.KindString, prolly.KindString, prolly.KindString}

func viewDef(o verso.Object) sql.ViewDefinition {
	return sql.ViewDefinition{Name: o.Name, TextDefinition: o.Fields[0].AsString(),
		CreateViewStatement: o.Fields[1].AsString(), SqlMode: o.Fields[2].AsString()}
}

// CreateView implements sql.ViewDatabase.
func (db *Database) CreateView(ctx *sql.Context, name, selectStatement, createViewStmt string) error {
	if vs, err := db.objects(ctx, viewPrefix, "view", viewKinds, name); err != nil {
		return err
	} else if len(vs) > 0 {
		return sql.ErrExistingView.New(db.Name(), name)
	}
	mode := sql.LoadSqlMode(ctx).String()
	return db.putObject(ctx, viewPrefix, name, verso.EncodeObject("view",
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
		out[i] = sql.TriggerDefinition{Name: o.Name, CreateStatement: o.Fields[0].AsString(),
			SqlMode: o.Fields[1].AsString(), CreatedAt: o.Fields[2].AsTime()}
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
	return db.putObject(ctx, triggerPrefix, def.Name, verso.EncodeObject("trigger",
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

func procedure(o verso.Object) sql.StoredProcedureDetails {
	return sql.StoredProcedureDetails{Name: o.Name, CreateStatement: o.Fields[0].AsString(), SqlMode: o.Fields[1].AsString(),
		CreatedAt: o.Fields[2].AsTime(), ModifiedAt: o.Fields[3].AsTime()}
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
	return db.putObject(ctx, procedurePrefix, p.Name, verso.EncodeObject("procedure",
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

// ObjectRows implements systables.TableReader: the rows of dolt_schemas
// (views, triggers, events) or dolt_procedures in root, as Dolt shows
// them. extra holds {"CreatedAt": seconds since the epoch}, 0 for a view
// (Dolt's views keep no time).
func (r tableReader) ObjectRows(ctx *sql.Context, root commitgraph.RootValue, item string) ([]sql.Row, error) {
	var out []sql.Row
	for _, prefix := range verso.ObjectItemPrefixes(item) {
		ents, err := root.Entries(ctx, prefix)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			o, err := r.db.st.db.ReadObject(ctx, e, prefix)
			if err != nil {
				return nil, err
			}
			row, err := objectRow(o)
			if err != nil {
				return nil, err
			}
			out = append(out, row)
		}
	}
	return out, nil
}

// objectRow returns the row of dolt_schemas or dolt_procedures of the
// object o.
func objectRow(o verso.Object) (sql.Row, error) {
	var kinds []prolly.Kind
	switch o.Kind {
	case "view":
		kinds = viewKinds
	case "trigger":
		kinds = triggerKinds
	case "event":
		kinds = sqlEventKinds
	case "procedure":
		kinds = procedureKinds
	}
	if len(o.Fields) != len(kinds) {
		return nil, fmt.Errorf("%w: %s %q has %d fields", verso.ErrBadObject, o.Kind, o.Name, len(o.Fields))
	}
	for i, k := range kinds {
		if o.Fields[i].Kind() != k {
			return nil, fmt.Errorf("%w: %s %q: field %d has the wrong kind", verso.ErrBadObject, o.Kind, o.Name, i+1)
		}
	}
	created := func(t time.Time) any {
		return types.NewLazyJSONDocument(fmt.Appendf(nil, `{"CreatedAt":%d}`, t.Unix()))
	}
	switch o.Kind {
	case "view":
		v := viewDef(o)
		return sql.Row{"view", o.Name, v.CreateViewStatement, created(time.Unix(0, 0)), v.SqlMode}, nil
	case "trigger":
		f := o.Fields
		return sql.Row{"trigger", o.Name, f[0].AsString(), created(f[2].AsTime()), f[1].AsString()}, nil
	case "event":
		e := eventDef(o)
		return sql.Row{"event", o.Name, o.Fields[0].AsString(), created(e.CreatedAt), e.SqlMode}, nil
	}
	p := procedure(o)
	return sql.Row{o.Name, p.CreateStatement, p.CreatedAt.UTC(), p.ModifiedAt.UTC(), p.SqlMode}, nil
}
