package prolly_test

import (
	"context"
	"fmt"
	"time"

	"github.com/verso-db/verso/chunks"
	"github.com/verso-db/verso/prolly"
)

func key(i int64) []byte { return prolly.EncodeKey(nil, prolly.Int(i)) }

func ExampleMap() {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	b := prolly.NewBuilder(ns)
	for i := 1; i <= 5; i++ {
		_ = b.Add(ctx, prolly.EncodeKey(nil, prolly.Int(int64(i*10))), prolly.EncodeTuple(nil, prolly.String(fmt.Sprint("row ", i))))
	}
	m, _ := b.Map(ctx)
	v, ok, _ := m.Get(ctx, prolly.EncodeKey(nil, prolly.Int(30)))
	name, _ := prolly.Tuple(v).Field(0)
	fmt.Println(m.Count(), ok, name.AsString())
	it := m.IterRange(ctx, prolly.EncodeKey(nil, prolly.Int(20)), prolly.EncodeKey(nil, prolly.Int(50)), true)
	for it.Next(ctx) {
		k, _ := prolly.DecodeKey(it.Key())
		fmt.Print(k[0].AsInt(), " ")
	}
	fmt.Println()
	// Output:
	// 5 true row 3
	// 40 30 20
}

func ExampleEncodeKey() {
	// (name ASC, day DESC): one customer's rows, newest first.
	a := prolly.EncodeKey(nil, prolly.String("ann"), prolly.Date(2026, 11, 30).Desc())
	b := prolly.EncodeKey(nil, prolly.String("ann"), prolly.Date(2026, 1, 1).Desc())
	c := prolly.EncodeKey(nil, prolly.String("bob"), prolly.Null().Desc())
	fmt.Println(string(a) < string(b), string(b) < string(c))
	vals, _ := prolly.DecodeKey(a)
	fmt.Println(vals[0].AsString(), vals[1])
	// Output:
	// true true
	// ann date:2026-11-30 desc
}

func ExampleTuple() {
	row := prolly.EncodeTuple(nil, prolly.Int(7), prolly.Null(), prolly.Timestamp(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)))
	f, _ := prolly.Tuple(row).Field(2) // read one field, decode no other
	n, _ := prolly.Tuple(row).Len()
	fmt.Println(n, f.AsTime().Format(time.RFC3339))
	// Output: 3 2026-11-30T09:00:00Z
}

func ExampleMap_Apply() {
	ctx := context.Background()
	m := prolly.NewMap(prolly.NewNodeStore(chunks.NewMemoryStore()))
	m, _ = m.Apply(ctx, []prolly.Edit{
		{Key: key(1), Value: []byte("one")},
		{Key: key(2), Value: []byte("two")},
		{Key: key(3), Value: []byte("three")},
	})
	m2, _ := m.Apply(ctx, []prolly.Edit{
		{Key: key(2), Delete: true},
		{Key: key(4), Value: []byte("four")},
	})
	fmt.Println(m.Count(), m2.Count())
	_ = prolly.DiffMaps(ctx, m, m2, func(d prolly.Diff) error {
		k, _ := prolly.DecodeKey(d.Key)
		fmt.Println(d.Type, k[0].AsInt())
		return nil
	})
	// Output:
	// 3 3
	// removed 2
	// added 4
}

func ExampleMerge() {
	ctx := context.Background()
	ns := prolly.NewNodeStore(chunks.NewMemoryStore())
	base, _ := prolly.NewMap(ns).Apply(ctx, []prolly.Edit{{Key: key(1), Value: []byte("a")}, {Key: key(2), Value: []byte("b")}})
	ours, _ := base.Apply(ctx, []prolly.Edit{{Key: key(1), Value: []byte("ours")}, {Key: key(2), Value: []byte("B")}})
	theirs, _ := base.Apply(ctx, []prolly.Edit{{Key: key(1), Value: []byte("theirs")}, {Key: key(3), Value: []byte("c")}})
	merged, _ := prolly.Merge(ctx, base, ours, theirs, func(c prolly.Conflict) ([]byte, bool, error) {
		return []byte(string(c.Ours) + "+" + string(c.Theirs)), true, nil
	})
	it := merged.IterAll(ctx)
	for it.Next(ctx) {
		fmt.Printf("%s ", it.Value())
	}
	fmt.Println()
	// Output: ours+theirs B c
}
