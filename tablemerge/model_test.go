package tablemerge

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/verso-db/verso/internal/mergemodel"
	"github.com/verso-db/verso/internal/testseed"
	"github.com/verso-db/verso/prolly"
	"github.com/verso-db/verso/tables"
)

// The model test: random inserts, updates and deletes on two branches from
// a common base, merged, and compared with a reference merge of plain Go
// maps.

// mrow is a model row: a (nullable: -1 is NULL), b, c.
type mrow [3]int

type model map[int]mrow

func modelSchema() *tables.Schema {
	return &tables.Schema{
		Columns: []tables.Column{
			{Name: "id", Type: "int", Kind: prolly.KindInt},
			{Name: "a", Type: "int", Kind: prolly.KindInt, Nullable: true},
			{Name: "b", Type: "varchar(8)", Kind: prolly.KindString},
			{Name: "c", Type: "int", Kind: prolly.KindInt},
		},
		PrimaryKey: []int{0},
		Indexes: []tables.Index{
			{Name: "ka", Columns: []int{1}},
			{Name: "kbc", Columns: []int{2, 3}},
		},
	}
}

func (r mrow) values(id int) []tables.Value {
	a := prolly.Int(int64(r[0]))
	if r[0] < 0 {
		a = prolly.Null()
	}
	return []tables.Value{prolly.Int(int64(id)), a, prolly.String(fmt.Sprintf("b%d", r[1])), prolly.Int(int64(r[2]))}
}

func (m model) clone() model {
	c := model{}
	for k, v := range m {
		c[k] = v
	}
	return c
}

// mutate applies n random changes to m and to the editor.
func mutate(t *testing.T, rng *rand.Rand, m model, ed *tables.Editor, n int) {
	t.Helper()
	keys := func() []int {
		var ks []int
		for k := range m {
			ks = append(ks, k)
		}
		sort.Ints(ks)
		return ks
	}
	rnd := func() mrow { return mrow{rng.Intn(4) - 1, rng.Intn(3), rng.Intn(3)} }
	for range n {
		ks := keys()
		switch op := rng.Intn(3); {
		case op == 0 || len(ks) == 0:
			k := rng.Intn(40)
			if _, ok := m[k]; ok {
				continue
			}
			r := rnd()
			m[k] = r
			if _, err := ed.Insert(t0ctx, r.values(k)); err != nil {
				t.Fatal(err)
			}
		case op == 1:
			k := ks[rng.Intn(len(ks))]
			old := m[k]
			r := old
			r[rng.Intn(3)] = rnd()[rng.Intn(3)]
			if rng.Intn(3) == 0 {
				r[rng.Intn(3)] = rnd()[0] + 1
			}
			m[k] = r
			if err := ed.Update(t0ctx, old.values(k), r.values(k)); err != nil {
				t.Fatal(err)
			}
		default:
			k := ks[rng.Intn(len(ks))]
			if err := ed.Delete(t0ctx, m[k].values(k)); err != nil {
				t.Fatal(err)
			}
			delete(m, k)
		}
	}
}

func (m model) String() string {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmtRow(m[k].values(k)))
	}
	return strings.Join(parts, " ")
}

func TestMergeModel(t *testing.T) {
	rng := rand.New(rand.NewSource(int64(testseed.Seed(t))))
	rounds := 300
	if testing.Short() {
		rounds = 50
	}
	totalConflicts, totalCells := 0, 0
	for round := range rounds {
		f := newFixture(t)
		bm := model{}
		bt := f.table(modelSchema())
		bt = f.edit(bt, func(ed *tables.Editor) error { mutate(t, rng, bm, ed, rng.Intn(60)); return nil })
		om, tm := bm.clone(), bm.clone()
		ot := f.edit(bt, func(ed *tables.Editor) error { mutate(t, rng, om, ed, rng.Intn(20)); return nil })
		tt := f.edit(bt, func(ed *tables.Editor) error { mutate(t, rng, tm, ed, rng.Intn(20)); return nil })
		res := f.mustMerge(f.root(map[string]any{"t": bt}), f.root(map[string]any{"t": ot}), f.root(map[string]any{"t": tt}))
		merged, wantConf := mergemodel.Merge(bm, om, tm)
		want := model(merged)
		if got := f.rows(res.Root, "t"); got != want.String() {
			t.Fatalf("round %d: merged rows\n got %s\nwant %s\nbase   %s\nours   %s\ntheirs %s", round, got, want, bm, om, tm)
		}
		var wc []string
		for k := range wantConf {
			wc = append(wc, fmt.Sprint(k))
		}
		sort.Slice(wc, func(i, j int) bool { return len(wc[i]) < len(wc[j]) || len(wc[i]) == len(wc[j]) && wc[i] < wc[j] })
		var gc []string
		for _, c := range strings.Fields(f.conflicts(res.Root, "t")) {
			k, _, _ := strings.Cut(strings.TrimPrefix(c, "("), ")")
			gc = append(gc, k)
		}
		if strings.Join(gc, " ") != strings.Join(wc, " ") {
			t.Fatalf("round %d: conflicts at keys %v, want %v", round, gc, wc)
		}
		totalConflicts += len(wc)
		for k, r := range want {
			if o, ok := om[k]; ok && r != o && r != tm[k] {
				totalCells++
			}
		}
	}
	t.Logf("%d rounds, %d conflicts, %d cell-wise merged rows", rounds, totalConflicts, totalCells)
	if totalConflicts == 0 || totalCells == 0 {
		t.Fatal("the random changes made no conflicts or no cell-wise merges: the test checks too little")
	}
}
