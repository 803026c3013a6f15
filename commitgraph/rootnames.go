package commitgraph

// The names of a root value: every layer that writes or reads an entry of a
// root value names it with these, so the layout has one owner. A root value
// maps names to chunk addresses (rootvalue.go); the names are stored as
// they are, so a shipped name never changes (TestRootNamesGolden).
//
//	tables/<t>                a SQL table t (tables.Table's chunk)
//	tableopts/<t>             its options the SQL layer keeps (engine, comment, ...)
//	conflicts/<t>/...         the merge conflicts of table t (tablemerge)
//	violations/<t>            the constraint violations of table t (tablemerge)
//	schemaconflicts/<t>       a merge's schema conflict of table t (tablemerge)
//	views/<v>                 a view's definition
//	triggers/<t>              a trigger's definition
//	procedures/<p>            a stored procedure's definition
//	foreignkeys/<f>           a foreign key's definition
//	events/log, events/...    the event log and its indexes (eventindex)
//	dbopts/<o>                a database option the SQL layer keeps (its default collation)
//	sqlevents/<e>             a scheduled SQL event's definition (CREATE EVENT)
//
// Names compare case-sensitively in the map; the SQL layer finds tables and
// objects case-insensitively by scanning a prefix.
const (
	TablePrefix      = "tables/"
	TableOptsPrefix  = "tableopts/"
	ConflictsPrefix  = "conflicts/"
	ViewPrefix       = "views/"
	TriggerPrefix    = "triggers/"
	ProcedurePrefix  = "procedures/"
	ForeignKeyPrefix = "foreignkeys/"
	EventsPrefix     = "events/"
	DBOptsPrefix     = "dbopts/"
	// ViolationsPrefix and SchemaConflictsPrefix, like ConflictsPrefix,
	// name what a merge leaves to resolve in a working root (never
	// staged or committed as a table's part).
	ViolationsPrefix      = "violations/"
	SchemaConflictsPrefix = "schemaconflicts/"
	SQLEventPrefix        = "sqlevents/"
)

// RootPrefixes lists every prefix above, in the order the layout lists
// them.
var RootPrefixes = []string{TablePrefix, TableOptsPrefix, ConflictsPrefix, ViewPrefix, TriggerPrefix, ProcedurePrefix, ForeignKeyPrefix, EventsPrefix, DBOptsPrefix, ViolationsPrefix, SchemaConflictsPrefix, SQLEventPrefix}
