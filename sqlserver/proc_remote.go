package sqlserver

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/verso-db/verso"
	"github.com/verso-db/verso/commitgraph"
	"github.com/verso-db/verso/internal/doltargs"
)

// dolt_remote, dolt_push and dolt_fetch, in Dolt's words (the corpus's
// r-* scenarios pin them):
//
//	CALL dolt_remote('add', 'origin', 'file:///path')   also s3://bucket/prefix
//	CALL dolt_remote('remove' | 'rm', 'origin')
//	CALL dolt_push([-f | --force] [-u | --set-upstream] [remote [refspec ...]])
//	CALL dolt_fetch([-p | --prune] [remote [branch | src:dst ...]])
//
// A refspec is a branch, src:dst (each a branch or refs/heads/<b>), or
// :dst to delete the remote's dst. Remotes are not versioned: they live
// beside the branches in the refs (commitgraph/remote.go).

var remoteProcedures = []sql.ExternalStoredProcedureDetails{
	{Name: "dolt_remote", Schema: statusSchema, Function: doltRemote},
	{Name: "dolt_push", Schema: pushSchema, Function: doltPush},
	{Name: "dolt_fetch", Schema: statusSchema, Function: doltFetch},
	{Name: "dolt_clone", Schema: statusSchema, Function: doltClone},
	{Name: "dolt_pull", Schema: pullSchema, Function: doltPull},
}

var pushSchema = sql.Schema{
	{Name: "status", Type: types.Int64, Nullable: false},
	{Name: "message", Type: types.LongText, Nullable: true},
}

var remoteSpec = procSpec("dolt_remote", doltargs.Spec{Opts: map[string]bool{}, Shorts: map[byte]string{}})

func doltRemote(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := remoteSpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	e := db.st.db
	errArg := errors.New("error: invalid argument")
	if len(a.pos) == 0 {
		return nil, errors.New("error: invalid argument, use 'dolt_remotes' system table to list remotes")
	}
	switch a.pos[0] {
	case "add":
		if len(a.pos) != 3 {
			return nil, errArg
		}
		name := a.pos[1]
		if !validRemoteName(name) {
			return nil, errors.New("remote name invalid")
		}
		u, err := remoteURL(a.pos[2], e.Dir())
		if err != nil {
			return nil, err
		}
		if p, ok := strings.CutPrefix(u, "file://"); ok {
			if err := os.MkdirAll(filepath.FromSlash(p), 0o755); err != nil {
				var pe *os.PathError
				if errors.As(err, &pe) {
					return nil, fmt.Errorf("failed to create directory '%s': %s %s: %v", p, pe.Op, pe.Path, pe.Err)
				}
				return nil, fmt.Errorf("failed to create directory '%s': %v", p, err)
			}
		}
		if err := e.AddRemote(ctx, name, u, nil); errors.Is(err, verso.ErrRemoteExists) {
			return nil, errors.New("remote already exists")
		} else if err != nil {
			return nil, err
		}
	case "remove", "rm":
		if len(a.pos) != 2 {
			return nil, errArg
		}
		if err := e.RemoveRemote(ctx, a.pos[1]); errors.Is(err, verso.ErrRemoteNotFound) {
			return nil, fmt.Errorf("error: unknown remote: '%s'", a.pos[1])
		} else if err != nil {
			return nil, err
		}
	default:
		return nil, errArg
	}
	return statusRow(0), nil
}

// validRemoteName reports whether Dolt takes name as a remote's: letters,
// digits, '-' and '_' (the empty name too, which a NULL gives).
func validRemoteName(name string) bool {
	for _, r := range name {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127) {
			return false
		}
	}
	return true
}

// doltHubRemotes is where Dolt sends a remote URL without a scheme.
const doltHubRemotes = "https://doltremoteapi.dolthub.com"

// remoteURL returns url as Dolt stores it: a relative file:// path
// resolved against the database's folder dir, a URL without a scheme
// taken as a path on DoltHub's remote API.
func remoteURL(raw, dir string) (string, error) {
	if !strings.Contains(raw, "://") {
		u, err := url.Parse("http://" + raw)
		if err != nil {
			return "", err
		}
		if u.Host == "" && u.Path == "" {
			return doltHubRemotes, nil
		}
		return doltHubRemotes + path.Clean("/"+u.Host+u.Path), nil
	}
	if p, ok := strings.CutPrefix(raw, "file://"); ok && !strings.HasPrefix(p, "/") && !filepath.IsAbs(p) {
		base := dir
		if base == "" {
			base, _ = os.Getwd()
		}
		return "file://" + filepath.ToSlash(filepath.Join(base, p)), nil
	}
	return raw, nil
}

var pushSpec = procSpec("dolt_push", doltargs.Spec{
	Opts:   map[string]bool{"force": false, "set-upstream": false},
	Shorts: map[byte]string{'f': "force", 'u': "set-upstream"},
})

func errRemoteNotFound(name string) error {
	return fmt.Errorf("fatal: remote '%s' not found.\nPlease make sure the remote exists.", name)
}

func errNoUpstream(branch, remote string) error {
	return fmt.Errorf("fatal: The current branch %s has no upstream branch.\n"+
		"To push the current branch and set the remote as upstream, use\n"+
		"\tdolt push --set-upstream %s %s\n"+
		"To have this happen automatically for branches without a tracking\n"+
		"upstream, see 'push.autoSetupRemote' in 'dolt config --help'.", branch, remote, branch)
}

var errNoPushDestination = errors.New("fatal: No configured push destination.\n" +
	"Either specify the URL from the command-line or configure a remote repository using\n\n" +
	"\tdolt remote add <name> <url>\n\n" +
	"and then push using the remote name\n\n" +
	"\tdolt push <name>\n\n")

// pushLine is one line of a push's report, Git's way.
func pushLine(mark, what, ref string) string {
	return fmt.Sprintf(" %s %-22s%s", mark, what, ref)
}

func doltPush(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := pushSpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	e := db.st.db
	branch := db.branch
	if branch == "" {
		branch = e.DefaultBranch()
	}
	rs, err := e.Remotes(ctx)
	if err != nil {
		return nil, err
	}
	remoteName := "origin"
	if len(rs) > 0 {
		remoteName = rs[0].Name
	}
	var specs []string
	switch len(a.pos) {
	case 0:
		if len(rs) == 0 {
			return nil, errNoPushDestination
		}
		ups, err := e.Upstreams(ctx)
		if err != nil {
			return nil, err
		}
		up, ok := ups[branch]
		if !ok {
			return nil, errNoUpstream(branch, remoteName)
		}
		remoteName, specs = up.Remote, []string{branch + ":" + up.Branch}
	case 1:
		if _, err := e.GetRemote(ctx, a.pos[0]); err != nil {
			return nil, errRemoteNotFound(a.pos[0])
		}
		return nil, errNoUpstream(branch, a.pos[0])
	default:
		remoteName, specs = a.pos[0], a.pos[1:]
	}
	r, err := e.GetRemote(ctx, remoteName)
	if err != nil {
		return nil, errRemoteNotFound(remoteName)
	}
	var lines []string
	head := "To " + r.URL
	report := func() string {
		if len(lines) == 0 {
			return ""
		}
		return head + "\n" + strings.Join(lines, "\n")
	}
	upToDate, tracking := true, ""
	for _, spec := range specs {
		src, dst, err := pushRefspec(ctx, e, spec)
		if err != nil {
			if len(lines) > 0 {
				return nil, fmt.Errorf("%s\n%v", report(), err)
			}
			return nil, err
		}
		res, err := e.Push(ctx, remoteName, src, dst, verso.PushOptions{Force: a.has("force")})
		switch {
		case errors.Is(err, verso.ErrRemoteMoved):
			lines = append(lines, pushLine("!", "[rejected]", src+" -> "+dst+" (non-fast-forward)"))
			return nil, fmt.Errorf("%s\nerror: failed to push some refs to '%s'\n"+
				"hint: Updates were rejected because the tip of your current branch is behind\n"+
				"hint: its remote counterpart. Integrate the remote changes (e.g.\n"+
				"hint: 'dolt pull ...') before pushing again.\n", report(), r.URL)
		case src == "" && (dst == "" || errors.Is(err, verso.ErrNoRemoteRef)):
			return nil, fmt.Errorf("failed to delete remote; 'refs/heads/%s' from remote '%s'; branch not found", dst, remoteName)
		case err != nil:
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("failed to get remote db; the remote: %s '%s' could not be accessed; %v", remoteName, r.URL, pe)
			}
			return nil, remoteError(err)
		case src == "":
			upToDate = false
			lines = append(lines, pushLine("-", "[deleted]", dst))
		case res.UpToDate():
		default:
			upToDate = false
			lines = append(lines, pushLine("*", "[new branch]", src+" -> "+dst))
		}
		if a.has("set-upstream") && src != "" {
			if err := e.SetUpstream(ctx, src, verso.Upstream{Remote: remoteName, Branch: dst}); err != nil {
				return nil, err
			}
			if res.Old.IsEmpty() {
				tracking += fmt.Sprintf("\nbranch '%s' set up to track '%s/%s'.", src, remoteName, dst)
			}
		}
	}
	msg := report() + tracking
	if upToDate && !a.has("set-upstream") {
		msg = "Everything up-to-date"
	}
	return sql.RowsToRowIter(sql.Row{int64(0), msg}), nil
}

// pushRefspec splits a push's refspec into the local branch and the
// remote's (src "" deletes dst), in Dolt's words when it is wrong.
func pushRefspec(ctx *sql.Context, e *verso.DB, spec string) (src, dst string, err error) {
	if spec == "" {
		return "", "", errors.New("invalid ref spec: ''")
	}
	src, dst, pair := strings.Cut(spec, ":")
	src = strings.TrimPrefix(src, "refs/heads/")
	dst = strings.TrimPrefix(dst, "refs/heads/")
	if !pair {
		dst = src
	}
	if dst == "" && src != "" {
		return "", "", fmt.Errorf("unknown push error; invalid ref format: refs/heads/%s", dst)
	}
	if src == "" {
		return "", dst, nil
	}
	if _, err := e.Graph().Head(ctx, src); err != nil {
		return "", "", fmt.Errorf("invalid ref spec; refspec not found: '%s'; branch not found: %s", spec, src)
	}
	return src, dst, nil
}

// remoteError is an engine error of a remote, in Dolt's words where
// Dolt has some: a remote folder that is gone is the file system's error.
func remoteError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return errors.New(pe.Error())
	}
	return err
}

var fetchSpec = procSpec("dolt_fetch", doltargs.Spec{
	Opts:   map[string]bool{"prune": false},
	Shorts: map[byte]string{'p': "prune"},
})

func doltFetch(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := fetchSpec.parse(args)
	if err != nil {
		return nil, err
	}
	db, err := currentDatabase(ctx)
	if err != nil {
		return nil, err
	}
	e := db.st.db
	rs, err := e.Remotes(ctx)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, errors.New("no remote")
	}
	name := "origin"
	if len(a.pos) > 0 {
		name = a.pos[0]
	}
	if _, err := e.GetRemote(ctx, name); err != nil {
		return nil, fmt.Errorf("unknown remote; '%s' does not appear to be a dolt database. could not read from the remote database. please make sure you have the correct access rights and the database exists", name)
	}
	var branches []string
	for _, spec := range a.pos[min(1, len(a.pos)):] {
		if spec == "" {
			return nil, errors.New("invalid fetch spec: ''")
		}
		src, dst, pair := strings.Cut(spec, ":")
		src = strings.TrimPrefix(src, "refs/heads/")
		if pair {
			dst = strings.TrimPrefix(dst, commitgraph.RemoteTrackingPrefix+name+"/")
			branches = append(branches, src+":"+dst)
		} else {
			branches = append(branches, src)
		}
	}
	_, err = e.Fetch(ctx, name, verso.FetchOptions{Branches: branches, Prune: a.has("prune")})
	if errors.Is(err, verso.ErrNoRemoteRef) {
		refs, rerr := e.RemoteHeads(ctx, name)
		if rerr == nil && len(refs) == 0 {
			return nil, fmt.Errorf("fetch failed: no branches found in remote '%s'", name)
		}
		for _, b := range branches {
			src, _, _ := strings.Cut(b, ":")
			if _, ok := refs[src]; !ok {
				return nil, fmt.Errorf("fetch failed: invalid ref spec: '%s'", src)
			}
		}
	}
	if err != nil {
		return nil, remoteError(err)
	}
	return statusRow(0), nil
}

var cloneSpec = procSpec("dolt_clone", doltargs.Spec{
	Opts:   map[string]bool{"remote": true, "branch": true},
	Shorts: map[byte]string{'b': "branch"},
})

func doltClone(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := cloneSpec.parse(args)
	if err != nil {
		return nil, err
	}
	s := sessionOf(ctx)
	if s == nil {
		return nil, fmt.Errorf("verso: session %T is not a verso session", ctx.Session)
	}
	switch {
	case len(a.pos) == 0:
		return nil, errors.New("error: invalid number of arguments: database URL must be specified and database name is optional")
	case len(a.pos) > 2:
		return nil, fmt.Errorf("error: clone has too many positional arguments. Expected at most 2, found %d: %s", len(a.pos), strings.Join(a.pos, ", "))
	}
	raw := a.pos[0]
	if !strings.Contains(raw, "://") {
		return nil, fmt.Errorf("error: invalid remote url: %s", raw)
	}
	u, err := remoteURL(raw, s.p.dataDir)
	if err != nil {
		return nil, fmt.Errorf("error: invalid remote url: %s", raw)
	}
	name := path.Base(strings.TrimRight(u[strings.Index(u, "://")+3:], "/"))
	if len(a.pos) == 2 {
		name = a.pos[1]
	}
	if checkDatabaseName(name) != nil {
		return nil, fmt.Errorf("Incorrect database name '%s'", name)
	}
	if p, ok := strings.CutPrefix(u, "file://"); ok {
		if err := os.MkdirAll(filepath.FromSlash(p), 0o755); err != nil {
			return nil, fmt.Errorf("clone failed; %v", err)
		}
	}
	err = s.p.CloneDatabase(ctx, u, name, verso.CloneOptions{Remote: a.vals["remote"], Branch: a.vals["branch"]})
	switch {
	case errors.Is(err, verso.ErrEmptyRemote):
		return nil, errors.New("clone failed; remote at that url contains no Dolt data")
	case errors.Is(err, verso.ErrNoRemoteRef):
		return nil, fmt.Errorf("clone failed; branch not found: %s", a.vals["branch"])
	case err != nil:
		return nil, err
	}
	return statusRow(0), nil
}

var pullSchema = sql.Schema{
	{Name: "fast_forward", Type: types.Int64, Nullable: false},
	{Name: "conflicts", Type: types.Int64, Nullable: false},
	{Name: "message", Type: types.LongText, Nullable: true},
}

var pullSpec = procSpec("dolt_pull", doltargs.Spec{
	Opts:   map[string]bool{"no-ff": false, "squash": false, "no-commit": false, "force": false, "prune": false},
	Shorts: map[byte]string{'f': "force", 'p': "prune"},
})

var errNoTracking = errors.New("There is no tracking information for the current branch.\n" +
	"Please specify which branch you want to merge with.\n\n" +
	"\tdolt pull <remote> <branch>\n\n" +
	"If you wish to set tracking information for this branch you can do so with:\n\n" +
	"\t dolt push --set-upstream <remote> <branch>\n")

// doltPull is dolt_pull([remote [branch]]): a fetch of the remote's
// branch (the current branch's upstream when none is named) and a merge
// of its remote-tracking branch into the current branch, with
// dolt_merge's options and results (less the hash).
func doltPull(ctx *sql.Context, args ...string) (sql.RowIter, error) {
	a, err := pullSpec.parse(args)
	if err != nil {
		return nil, err
	}
	if len(a.pos) > 2 {
		return nil, fmt.Errorf("error: pull has too many positional arguments. Expected at most 2, found %d: %s", len(a.pos), strings.Join(a.pos, ", "))
	}
	d, err := procBranch(ctx)
	if err != nil {
		return nil, err
	}
	e := d.st.db
	branch := d.Branch()
	rs, err := e.Remotes(ctx)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 && len(a.pos) == 0 {
		return nil, errors.New("no remote")
	}
	ups, err := e.Upstreams(ctx)
	if err != nil {
		return nil, err
	}
	up, tracked := ups[branch]
	var remoteName, remoteBranch string
	switch len(a.pos) {
	case 0:
		if !tracked {
			return nil, errNoTracking
		}
		remoteName, remoteBranch = up.Remote, up.Branch
	case 1:
		remoteName = a.pos[0]
		if _, err := e.GetRemote(ctx, remoteName); err != nil && (remoteName != "" || len(rs) == 0) {
			return nil, errRemoteNotFound(remoteName)
		}
		if !tracked || up.Remote != remoteName {
			return nil, fmt.Errorf("You asked to pull from the remote '%s', but did not specify a branch. Because this is not the default configured remote for your current branch, you must specify a branch.", remoteName)
		}
		remoteBranch = up.Branch
	default:
		remoteName, remoteBranch = a.pos[0], a.pos[1]
	}
	r, err := e.GetRemote(ctx, remoteName)
	if err != nil {
		return nil, errRemoteNotFound(remoteName)
	}
	if err := d.flushAll(ctx); err != nil {
		return nil, err
	}
	if st, err := d.Status(ctx); err != nil {
		return nil, err
	} else if len(st) > 0 {
		return nil, errors.New("cannot merge with uncommitted changes")
	}
	var pe *fs.PathError
	if _, err := e.Fetch(ctx, remoteName, verso.FetchOptions{Branches: []string{remoteBranch}}); errors.Is(err, verso.ErrNoRemoteRef) {
		return nil, fmt.Errorf("branch %q not found on remote", remoteBranch)
	} else if errors.As(err, &pe) {
		return nil, fmt.Errorf("failed to get remote db; %v", pe)
	} else if err != nil {
		return nil, remoteError(err)
	}
	me, idErr := commitIdentity(ctx)
	opts := verso.MergeOptions{
		Author: me, Message: fmt.Sprintf("Merge branch '%s' of %s into %s", remoteBranch, r.URL, branch),
		NoFF: a.has("no-ff"), Squash: a.has("squash"), NoCommit: a.has("no-commit"),
		Default:         columnDefault(ctx),
		RefuseConflicts: autocommitting(ctx) && !conflictsAllowed(ctx),
	}
	if db, err := currentDatabase(ctx); err == nil {
		opts.Verify = mergeVerifier(ctx, db)
	}
	row, err := runMerge(ctx, d, commitgraph.RemoteTrackingPrefix+remoteName+"/"+remoteBranch, opts, idErr)
	if err != nil {
		return nil, err
	}
	if row[2] == int64(1) {
		row[3] = "merge has unresolved conflicts or constraint violations"
	} else if a.has("squash") && row[0] != "" || a.has("squash") && row[1] == int64(0) && row[3] == msgMergeOK {
		// Dolt's pull commits what a squash staged, with the pull's
		// message and one parent.
		if _, err := commitArgs(ctx, []string{"-m", opts.Message}); err != nil {
			return nil, err
		}
	}
	return sql.RowsToRowIter(row[1:]), nil
}
