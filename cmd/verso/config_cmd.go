package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/verso-db/verso/internal/atomicfile"
)

// verso config: settings of the command line, as Dolt's dolt config:
// the user's (--global), in $XDG_CONFIG_HOME/verso/config.json
// (~/.config/verso/ by default), and a database's (--local), in its
// .verso/config.json, which wins over the user's. user.name and
// user.email are the author of the commits the commands make when no
// --author, $VERSO_AUTHOR_NAME or $VERSO_AUTHOR_EMAIL says otherwise.
// Each file is a JSON object of strings, written whole (atomicfile).

// configPath is the config file's path: the user's, or with local the
// one of the database of dir.
func configPath(dir string, local bool) (string, error) {
	if local {
		root, err := findRepoRoot(dir)
		if err != nil {
			return "", err
		}
		return filepath.Join(root, repoDir, "config.json"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the user's config folder: %w", err)
	}
	return filepath.Join(d, "verso", "config.json"), nil
}

// readConfig reads the config file at path; a missing file is an empty
// one.
func readConfig(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object of strings: %v (fix or delete it)", path, err)
	}
	return m, nil
}

// writeConfig replaces the config file at path.
func writeConfig(path string, m map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

// configValue returns the setting key for the commands run in dir: the
// database's, else the user's; "" if unset or unreadable.
func configValue(dir, key string) string {
	for _, local := range []bool{true, false} {
		path, err := configPath(dir, local)
		if err != nil {
			continue
		}
		if m, err := readConfig(path); err == nil && m[key] != "" {
			return m[key]
		}
	}
	return ""
}

func runConfig(c cliContext, args []string) int {
	fs := newFlags("config", c)
	global := fs.Bool("global", false, "the user's settings")
	local := fs.Bool("local", false, "the database's settings, which win over the user's")
	list := fs.Bool("list", false, "print every setting")
	get := fs.Bool("get", false, "print the setting <key>")
	add := fs.Bool("add", false, "set <key> to <value>")
	unset := fs.Bool("unset", false, "remove the settings <key>...")
	pos, code, ok := parseFlags(fs, args, -1)
	if !ok {
		return code
	}
	n := 0
	for _, b := range []bool{*list, *get, *add, *unset} {
		if b {
			n++
		}
	}
	usage := func(msg string) int {
		fmt.Fprintf(c.stderr, "verso config: %s (verso config --help)\n", msg)
		return 2
	}
	switch {
	case n != 1:
		return usage("give one of --list, --get, --add or --unset")
	case *local && *global:
		return usage("give --global or --local, not both")
	case (*add || *unset) && !*global && !*local:
		return usage("--add and --unset need --global or --local")
	case *add && len(pos) != 2, *get && len(pos) != 1, *unset && len(pos) == 0, *list && len(pos) != 0:
		return usage("wrong arguments: --add <key> <value>, --get <key>, --unset <key>..., --list")
	}
	// Reading without a scope merges the two, the database's winning.
	scopes := []bool{*local}
	if !*global && !*local {
		scopes = []bool{false, true}
	}
	m := map[string]string{}
	var path string
	for _, sc := range scopes {
		p, err := configPath(c.dir, sc)
		if err != nil {
			if !*local && sc {
				continue // no database here: the user's only
			}
			fmt.Fprintf(c.stderr, "verso config: %v\n", err)
			return 1
		}
		got, err := readConfig(p)
		if err != nil {
			fmt.Fprintf(c.stderr, "verso config: %v\n", err)
			return 1
		}
		for k, v := range got {
			m[k] = v
		}
		path = p
	}
	switch {
	case *list:
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(c.stdout, "%s = %s\n", k, m[k])
		}
		return 0
	case *get:
		v, ok := m[pos[0]]
		if !ok {
			return 1 // as git and Dolt: unset is exit 1, quietly
		}
		fmt.Fprintln(c.stdout, v)
		return 0
	case *add:
		m[pos[0]] = pos[1]
	case *unset:
		for _, k := range pos {
			delete(m, k)
		}
	}
	if err := writeConfig(path, m); err != nil {
		fmt.Fprintf(c.stderr, "verso config: %v\n", err)
		return 1
	}
	return 0
}
