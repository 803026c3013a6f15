package chunks_test

import (
	"context"
	"fmt"
	"os"

	"github.com/verso-db/verso/chunks"
)

// A file store: put chunks, commit them with a new root in one sync, reopen
// and read them back.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "verso-example-")
	defer os.RemoveAll(dir)

	s, err := chunks.OpenFileStore(dir, chunks.Options{})
	if err != nil {
		panic(err)
	}
	a, _ := s.Put(ctx, []byte("hello, verso"))
	if err := s.Commit(ctx, a, chunks.Address{}); err != nil { // expected root: empty
		panic(err)
	}
	// A commit against a root that moved changes nothing.
	err = s.Commit(ctx, a, chunks.Address{})
	fmt.Println("stale commit:", err != nil)
	s.Close()

	s, _ = chunks.OpenFileStore(dir, chunks.Options{})
	defer s.Close()
	root, _ := s.Root(ctx)
	data, _ := s.Get(ctx, root)
	fmt.Println(root == a, string(data))
	fmt.Println(a)
	// Output:
	// stale commit: true
	// true hello, verso
	// 14top9ed8ji8vb7v0qq7fqnlkcitje8i
}
