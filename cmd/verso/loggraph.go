package main

import (
	"io"
	"slices"
	"strings"

	"github.com/verso-db/verso"
)

// graphWriter draws log --graph: one line per commit, in log order (which
// lists a commit before its parents), with a lane per line of history
// being followed:
//
//   - merge side          a merge opens a lane for its second parent
//     |\
//   - | on main
//     | * on side
//     |/                      lanes waiting for the same commit join
//   - base
type graphWriter struct {
	w     io.Writer
	lanes []verso.Hash // the commit each lane waits for
}

// commit draws c with the text of its line.
func (g *graphWriter) commit(c *verso.Commit, text string) {
	col := -1
	var joins []int
	for i, a := range g.lanes {
		if a != c.Addr {
			continue
		}
		if col < 0 {
			col = i
		} else {
			joins = append(joins, i)
		}
	}
	if col < 0 {
		g.lanes = append(g.lanes, c.Addr)
		col = len(g.lanes) - 1
	}
	if len(joins) > 0 {
		g.line(func(i int) (string, bool) {
			if slices.Contains(joins, i) {
				return "/", true
			}
			return "|", false
		})
		for k := len(joins) - 1; k >= 0; k-- {
			g.lanes = slices.Delete(g.lanes, joins[k], joins[k]+1)
		}
	}
	row := g.row(func(i int) (string, bool) {
		if i == col {
			return "*", false
		}
		return "|", false
	})
	pad := ""
	if len(c.Parents) > 1 {
		pad = strings.Repeat(" ", 2*(len(c.Parents)-1))
	}
	io.WriteString(g.w, row+pad+" "+text+"\n")
	if len(c.Parents) == 0 {
		g.lanes = slices.Delete(g.lanes, col, col+1)
		return
	}
	g.lanes[col] = c.Parents[0]
	var opened []int
	for _, p := range c.Parents[1:] {
		if slices.Contains(g.lanes, p) {
			continue
		}
		at := col + 1 + len(opened)
		g.lanes = slices.Insert(g.lanes, at, p)
		opened = append(opened, at)
	}
	if len(opened) > 0 {
		g.line(func(i int) (string, bool) {
			if slices.Contains(opened, i) {
				return "\\", true
			}
			return "|", false
		})
	}
}

// row renders one character per lane at even columns.
func (g *graphWriter) row(mark func(i int) (string, bool)) string {
	var b strings.Builder
	for i := range g.lanes {
		s, _ := mark(i)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// line writes a connecting line: a lane whose mark leans ("/" or "\") is
// drawn between its column and the one to its left.
func (g *graphWriter) line(mark func(i int) (string, bool)) {
	cells := make([]byte, 2*len(g.lanes))
	for i := range cells {
		cells[i] = ' '
	}
	for i := range g.lanes {
		s, lean := mark(i)
		pos := 2 * i
		if lean && pos > 0 {
			pos--
		}
		cells[pos] = s[0]
	}
	io.WriteString(g.w, strings.TrimRight(string(cells), " ")+"\n")
}
