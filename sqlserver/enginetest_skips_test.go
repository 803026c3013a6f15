package sqlserver

// engineSkips lists the engine-suite queries verso skips, lower case, each
// with the reason. Counts of what passes and fails are in the report of the
// commit that last ran the suite (see docs or the commit message).
var engineSkips = map[string]string{}
