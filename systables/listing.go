package systables

import "slices"

// The system tables SHOW TABLES and information_schema list while
// @@dolt_show_system_tables is on, as Dolt 2.3.1 lists them: the fixed
// tables below, and for each table t of the working root (the stored
// system tables and the tables of schema objects included) the tables of
// each prefix below. Package sqlserver lists those of them it can open
// (a table of a feature verso lacks is left out), beside the stored
// system tables themselves.

// listedFixed are the fixed system tables Dolt lists.
var listedFixed = []string{
	BackupsName, BranchActivityName, BranchesName, AncestorsName, CommitsName, ConflictsName,
	"dolt_constraint_violations", HelpName, LogName, RemoteBranchesName, RemotesName,
	StashesName, StatusName, StatusIgnName,
}

// listedPrefixes are the prefixes of the tables of a table Dolt lists.
var listedPrefixes = []string{
	DiffTablePrefix, "dolt_commit_diff_", HistoryPrefix, ConflictsPrefix, ConstraintViolationsPrefix, WorkspacePrefix,
}

// ListedNames returns the names of the system tables Dolt lists for a
// database whose working root holds tables, sorted.
func ListedNames(tables []string) []string {
	out := slices.Clone(listedFixed)
	for _, t := range tables {
		for _, p := range listedPrefixes {
			out = append(out, p+t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
