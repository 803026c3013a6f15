package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// verso config: settings of the command line kept for the user, as
// Dolt's dolt config --global: user.name and user.email are the author
// of the commits the commands make when no --author, $VERSO_AUTHOR_NAME
// or $VERSO_AUTHOR_EMAIL says otherwise. They are a JSON object of
// strings in $XDG_CONFIG_HOME/verso/config.json (~/.config/verso/ by
// default), written whole through a temporary file and a rename.

// configPath is the global config file's path.
func configPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the user's config folder: %w", err)
	}
	return filepath.Join(dir, "verso", "config.json"), nil
}

// readConfig reads the global config; a missing file is an empty one.
func readConfig() (map[string]string, error) {
	path, err := configPath()
	if err != nil {
		return nil, err
	}
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

// writeConfig replaces the global config.
func writeConfig(m map[string]string) error {
	path, err := configPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// configValue returns the global setting key, "" if unset or unreadable.
func configValue(key string) string {
	m, err := readConfig()
	if err != nil {
		return ""
	}
	return m[key]
}

func runConfig(c cliContext, args []string) int {
	fs := newFlags("config", c)
	global := fs.Bool("global", false, "the user's settings (the only scope so far)")
	local := fs.Bool("local", false, "the database's settings (not kept yet: use --global)")
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
	case *local:
		return usage("--local settings are not kept yet; use --global")
	case n != 1:
		return usage("give one of --list, --get, --add or --unset")
	case *add && !*global:
		return usage("--add needs --global (the only scope so far)")
	case *add && len(pos) != 2, *get && len(pos) != 1, *unset && len(pos) == 0, *list && len(pos) != 0:
		return usage("wrong arguments: --add <key> <value>, --get <key>, --unset <key>..., --list")
	}
	m, err := readConfig()
	if err != nil {
		fmt.Fprintf(c.stderr, "verso config: %v\n", err)
		return 1
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
	if err := writeConfig(m); err != nil {
		fmt.Fprintf(c.stderr, "verso config: %v\n", err)
		return 1
	}
	return 0
}
