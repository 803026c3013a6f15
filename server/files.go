package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// secure_file_priv's configuration. The server's sessions reach files of
// its host (LOAD_FILE, SELECT ... INTO OUTFILE and INTO DUMPFILE, LOAD
// DATA INFILE) only inside one folder, and only with the FILE privilege;
// the SQL adapters enforce that (sqlserver's files.go and access.go,
// through Embedded.EnforceAccounts), and the server chooses the folder
// from Config.SecureFilePriv.

// DefaultFilesDir is the folder of a data dir that secure_file_priv names
// by default. Its name begins with '.', which no database's may
// (sqlserver's names.go), so no database folder can be it.
const DefaultFilesDir = ".verso-files"

// secureFilePrivDir resolves setting (Config.SecureFilePriv) to the
// folder file statements may reach, "" for none: "NULL" is none, ""
// the data dir's DefaultFilesDir (made if missing) or none for databases
// in memory (dataDir ""), anything else a folder that must exist (which
// EnforceAccounts checks).
func secureFilePrivDir(setting, dataDir string) (string, error) {
	switch {
	case strings.EqualFold(setting, "NULL"):
		return "", nil
	case setting != "":
		return setting, nil
	case dataDir == "":
		return "", nil
	}
	dir := filepath.Join(dataDir, DefaultFilesDir)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", fmt.Errorf("making the secure_file_priv folder: %w", err)
	}
	return dir, nil
}
