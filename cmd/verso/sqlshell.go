package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/chzyer/readline"
	"golang.org/x/term"
)

// verso sql's shell, when its input is a terminal and no -q is given:
// line editing and history (~/.verso_sql_history, kept across sessions;
// Ctrl-R searches it), statements over several lines until the delimiter
// or \G, DELIMITER, exit or quit (or Ctrl-D) to leave, Ctrl-C to drop
// the statement being typed, errors printed without ending the shell,
// and results longer than the screen through a pager ($VERSO_PAGER or
// $PAGER, else less -FRSX if there is one; an empty one turns it off).
// The prompt names the current database and branch, as Dolt's does.

// lineSource is where the shell reads its lines: readline on a terminal,
// a list in tests.
type lineSource interface {
	Readline() (string, error)
	SetPrompt(string)
	SaveHistory(string) error
}

// runShell runs the shell of r on the terminal in.
func runShell(r *sqlRunner, in io.Reader, out io.Writer) int {
	cfg := &readline.Config{
		Prompt:                 "> ",
		InterruptPrompt:        "^C",
		EOFPrompt:              "exit",
		DisableAutoSaveHistory: true, // whole statements, not lines
		HistorySearchFold:      true,
		Stdout:                 out,
	}
	if home, err := os.UserHomeDir(); err == nil {
		cfg.HistoryFile = filepath.Join(home, ".verso_sql_history")
	}
	if f, ok := in.(*os.File); ok && f != os.Stdin {
		cfg.Stdin = f
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		fmt.Fprintf(r.stderr, "verso sql: starting the shell: %v\n", err)
		return 1
	}
	defer rl.Close()
	if f, ok := out.(*os.File); ok && isTerminal(f) {
		r.pager = terminalPager(f)
	}
	return shellLoop(r, rl, out)
}

// shellLoop reads statements from src and runs them with r until exit or
// the end of the input.
func shellLoop(r *sqlRunner, src lineSource, out io.Writer) int {
	r.interactive = true
	fmt.Fprintf(out, "verso %s: SQL statements end with ; (or the DELIMITER) or \\G (vertical rows); exit or quit leaves.\n\n", moduleVersion())
	var buf strings.Builder
	for {
		p := shellPrompt(r)
		if buf.Len() > 0 {
			p = strings.Repeat(" ", max(0, len(p)-3)) + "-> "
		}
		src.SetPrompt(p)
		line, err := src.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			buf.Reset()
			continue
		case err != nil: // io.EOF: Ctrl-D
			return 0
		}
		if buf.Len() == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		text := buf.String()
		if !shellComplete(text, r.delim) {
			continue
		}
		buf.Reset()
		src.SaveHistory(strings.TrimSpace(text))
		err = r.runText(text, 1)
		r.out.Flush()
		if err == errExit {
			return 0
		}
	}
}

// shellPrompt is the prompt: the current database and branch.
func shellPrompt(r *sqlRunner) string {
	db := r.ctx.GetCurrentDatabase()
	if db == "" {
		return "verso> "
	}
	if !strings.Contains(db, "/") {
		if _, iter, _, err := r.e.Query(r.ctx, "SELECT active_branch()"); err == nil {
			if row, err := iter.Next(r.ctx); err == nil && len(row) == 1 {
				if b, ok := row[0].(string); ok && b != "" {
					db += "/" + b
				}
			}
			iter.Close(r.ctx)
		}
	}
	return db + "> "
}

// shellComplete reports whether text, the lines typed so far, is whole:
// a client command, or statements of which the last ends with the
// delimiter or \G.
func shellComplete(text, delim string) bool {
	if _, _, _, ok := clientCommand(strings.TrimLeft(text, " \t\n")); ok {
		return true
	}
	off := 0
	for {
		end, n, _ := scanTerminator(text[off:], delim)
		if n == 0 {
			return false
		}
		off += end + n
		if strings.TrimSpace(text[off:]) == "" {
			return true
		}
	}
}

// terminalPager returns the shell's pager on the terminal f: for a result
// of more lines than the screen has, a writer into the pager's input and
// the function that waits for the pager to end; nil when it fits or
// there is no pager.
func terminalPager(f *os.File) func(lines int) (io.Writer, func()) {
	cmdline, ok := os.LookupEnv("VERSO_PAGER")
	if !ok {
		cmdline, ok = os.LookupEnv("PAGER")
	}
	if !ok {
		if _, err := exec.LookPath("less"); err == nil {
			cmdline = "less -FRSX"
		}
	}
	if strings.TrimSpace(cmdline) == "" {
		return nil
	}
	return func(lines int) (io.Writer, func()) {
		_, height, err := term.GetSize(int(f.Fd()))
		if err != nil || height <= 0 || lines < height-1 {
			return nil, nil
		}
		cmd := exec.Command("sh", "-c", cmdline)
		cmd.Stdout, cmd.Stderr = f, f
		w, err := cmd.StdinPipe()
		if err != nil {
			return nil, nil
		}
		if err := cmd.Start(); err != nil {
			return nil, nil
		}
		return &pagerWriter{w: w}, func() {
			w.Close()
			cmd.Wait()
		}
	}
}

// pagerWriter writes into a pager until the user leaves it, then
// discards the rest of the result.
type pagerWriter struct {
	w    io.Writer
	gone bool
}

func (p *pagerWriter) Write(b []byte) (int, error) {
	if !p.gone {
		if _, err := p.w.Write(b); err != nil {
			p.gone = true
		}
	}
	return len(b), nil
}
