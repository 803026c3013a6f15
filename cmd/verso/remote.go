package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/sqlserver"
)

// verso remote, verso clone, and what fetch, pull and push share: the
// engine's remotes (package verso's remote.go) on the command line, as
// Dolt's commands of the same names behave.
//
// A remote is a URL: file:///abs/path (a folder) or s3://bucket/prefix.
// remote add resolves a relative file:// URL (file://../r) against the
// command's folder and stores it absolute, as Dolt does, so the remote
// names the same folder wherever it is used from later; it makes a file
// remote's folder if missing, as Dolt does. The commands
// that only read (remote, remote -v) open the database read-only and work
// beside a server; those that write (remote add and remove, fetch, pull,
// push) run their procedure (dolt_remote, dolt_fetch, dolt_pull,
// dolt_push) through a running server that holds the database, with the
// same arguments, as the other writing commands do (serverinfo.go).
// clone makes a new database, which no server holds.

// runRemoteCommand is verso remote [-v] | add <name> <url> | remove|rm
// <name>.
func runRemoteCommand(c cliContext, args []string) int {
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	fs := newFlags("remote", c)
	verbose := fs.BoolP("verbose", "v", false, "print each remote's URL (and parameters) after its name")
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	switch sub {
	case "":
		if len(pos) > 0 {
			fmt.Fprintf(c.stderr, "verso remote: %q is not add, remove or rm (verso remote --help)\n", pos[0])
			return 2
		}
		return withDB("remote", c.dir, true, c.stderr, func(ctx context.Context, db *verso.DB) error {
			rs, err := db.Remotes(ctx)
			if err != nil {
				return err
			}
			for _, r := range rs {
				if !*verbose {
					fmt.Fprintln(c.stdout, r.Name)
					continue
				}
				fmt.Fprintf(c.stdout, "%s %s%s\n", r.Name, r.URL, formatParams(r.Params))
			}
			return nil
		})
	case "add":
		if len(pos) != 2 || *verbose {
			fmt.Fprintln(c.stderr, "verso remote add: give a name and a URL, for example verso remote add origin file:///srv/verso/shop (verso remote --help)")
			return 2
		}
		u, err := remoteURL(c.dir, pos[1])
		if err != nil {
			fmt.Fprintf(c.stderr, "verso remote add: %v\n", err)
			return 1
		}
		if code, ok := throughServer(c, "remote", procedureCall("dolt_remote", []string{"add", pos[0], u})); ok {
			return code
		}
		return withDB("remote", c.dir, false, c.stderr, func(ctx context.Context, db *verso.DB) error {
			if err := remoteFailure(db.AddRemote(ctx, pos[0], u, nil), pos[0]); err != nil {
				return err
			}
			// A file remote's folder is made now, as Dolt makes it, so
			// that the first push finds it.
			if p, err := url.Parse(u); err == nil && strings.EqualFold(p.Scheme, "file") {
				return os.MkdirAll(filepath.FromSlash(p.Host+p.Path), 0o755)
			}
			return nil
		})
	case "remove", "rm":
		if len(pos) != 1 || *verbose {
			fmt.Fprintf(c.stderr, "verso remote %s: give the remote's name (verso remote --help)\n", sub)
			return 2
		}
		if code, ok := throughServer(c, "remote", procedureCall("dolt_remote", []string{"remove", pos[0]})); ok {
			return code
		}
		return withDB("remote", c.dir, false, c.stderr, func(ctx context.Context, db *verso.DB) error {
			return remoteFailure(db.RemoveRemote(ctx, pos[0]), pos[0])
		})
	}
	fmt.Fprintf(c.stderr, "verso remote: %q is not add, remove or rm (verso remote --help)\n", sub)
	return 2
}

// formatParams writes a remote's parameters as " key=value ...", sorted;
// "" when it has none.
func formatParams(params map[string]string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, params[k])
	}
	return b.String()
}

// remoteURL checks raw as a remote's URL and returns it as it is to be
// stored: a file:// URL of a relative folder is made absolute against dir
// (the command's folder).
func remoteURL(dir, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		p := u.Host + u.Path
		if p == "" {
			return "", fmt.Errorf("%q names no folder: give file:///absolute/path", raw)
		}
		if filepath.IsAbs(filepath.FromSlash(p)) {
			return raw, nil
		}
		abs, err := filepath.Abs(joinDir(dir, filepath.FromSlash(p)))
		if err != nil {
			return "", err
		}
		return "file://" + filepath.ToSlash(abs), nil
	case "s3":
		return raw, nil
	case "":
		return "", fmt.Errorf("%q has no scheme: give file:///absolute/path (a folder) or s3://bucket/prefix", raw)
	}
	return "", fmt.Errorf("%q: verso's remotes are file:///path and s3://bucket/prefix, not %s://", raw, u.Scheme)
}

// remoteFailure words the engine's errors about the remote name.
func remoteFailure(err error, name string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, verso.ErrRemoteNotFound):
		return fmt.Errorf("unknown remote %q; verso remote -v lists the remotes, verso remote add %s <url> adds one", name, name)
	case errors.Is(err, verso.ErrRemoteExists):
		return fmt.Errorf("a remote named %q exists already (verso remote -v); remove it first to change its URL", name)
	case errors.Is(err, verso.ErrBadName):
		return fmt.Errorf("%q is not a valid remote name", name)
	}
	return err
}

// upstreamOf returns the upstream of branch, if it has one.
func upstreamOf(ctx context.Context, db *verso.DB, branch string) (verso.Upstream, bool, error) {
	ups, err := db.Upstreams(ctx)
	if err != nil {
		return verso.Upstream{}, false, err
	}
	u, ok := ups[branch]
	return u, ok, nil
}

// likelyRemote is the remote a hint names: the only one, else origin.
func likelyRemote(ctx context.Context, db *verso.DB) string {
	if rs, err := db.Remotes(ctx); err == nil && len(rs) == 1 {
		return rs[0].Name
	}
	return "origin"
}

// runClone is verso clone [--remote name] [-b branch] <url> [dir].
func runClone(c cliContext, args []string) int {
	fs := newFlags("clone", c)
	remote := fs.String("remote", "origin", "the name the remote gets in the clone")
	branch := fs.StringP("branch", "b", "", "the clone's current branch (default: the remote's main, else its first branch)")
	pos, code, ok := parseFlags(fs, args, 2)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(c.stderr, "verso clone: give the remote's URL, and the folder to clone into (verso clone --help)")
		return 2
	}
	if *remote == "" {
		*remote = "origin"
	}
	u, err := remoteURL(c.dir, pos[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "verso clone: %v\n", err)
		return 1
	}
	var target string
	if len(pos) == 2 {
		target = pos[1]
	} else if target = cloneFolder(u); target == "" {
		fmt.Fprintf(c.stderr, "verso clone: cannot name a folder after %s; give one: verso clone %s <dir>\n", u, pos[0])
		return 2
	}
	target = joinDir(c.dir, target)
	if err := checkCloneTarget(target); err != nil {
		fmt.Fprintf(c.stderr, "verso clone: %v\n", err)
		return 1
	}
	if err := checkRemoteFolder(u); err != nil {
		fmt.Fprintf(c.stderr, "verso clone: %v\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "cloning %s into %s\n", u, target)
	ctx := context.Background()
	show := transferProgress(c.stderr, false)
	db, err := verso.Clone(ctx, u, target, verso.CloneOptions{
		Options: verso.Options{Collations: sqlserver.Collations()},
		Remote:  *remote, Branch: *branch, Progress: show.callback(),
	})
	show.finish(err == nil)
	switch {
	case errors.Is(err, verso.ErrNoRemoteRef):
		fmt.Fprintf(c.stderr, "verso clone: the remote %s has no branch %q\n", u, *branch)
		return 1
	case err != nil:
		fmt.Fprintf(c.stderr, "verso clone: %v\n", remoteFailure(err, *remote))
		return 1
	}
	defer db.Close()
	// The branch checked out pulls from and pushes to the remote's, as a
	// Dolt clone's does.
	cur := db.DefaultBranch()
	if err := db.SetUpstream(ctx, cur, verso.Upstream{Remote: *remote, Branch: cur}); err != nil {
		fmt.Fprintf(c.stderr, "verso clone: %v\n", err)
		return 1
	}
	if err := db.Close(); err != nil {
		fmt.Fprintf(c.stderr, "verso clone: %v\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "on branch %s, tracking %s/%s\n", cur, *remote, cur)
	return 0
}

// cloneFolder is the folder a clone of u goes to by default: the last
// element of its path (of s3://bucket, the bucket).
func cloneFolder(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	name := path.Base(strings.TrimRight(p.Path, "/"))
	if name == "/" || name == "." || name == "" {
		name = p.Host
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return ""
	}
	return name
}

// checkCloneTarget refuses a folder that exists and is not empty, as
// git does (Dolt would make a database inside it), but for what a clone
// killed part way left.
func checkCloneTarget(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(entries) > 0 && !verso.CloneLeftover(dir): // a killed clone's is no obstacle
		if _, err := os.Stat(filepath.Join(dir, repoDir)); err == nil {
			return fmt.Errorf("%s already holds a database", dir)
		}
		return fmt.Errorf("%s exists and is not empty; clone into a new or empty folder", dir)
	}
	return nil
}

// checkRemoteFolder says clearly that a file:// remote's folder is
// missing (the engine's message asks to create it, which suits a push).
func checkRemoteFolder(u string) error {
	p, err := url.Parse(u)
	if err != nil || !strings.EqualFold(p.Scheme, "file") {
		return nil
	}
	dir := filepath.FromSlash(p.Host + p.Path)
	if fi, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no remote at %s: the folder %s does not exist", u, dir)
	} else if err == nil && !fi.IsDir() {
		return fmt.Errorf("no remote at %s: %s is not a folder", u, dir)
	}
	return nil
}
