package chunks

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The crash test runs this test binary again as a child process that puts
// and commits in a loop, and kills it with SIGKILL at random moments.
//
// Each commit's root is a chunk that lists the chunks of that commit and the
// previous root, so the chain from any root reaches every chunk committed
// before it. The child prints each root once Commit has returned; after the
// kill, the store must open at that root or a later one, with the whole chain
// readable and every chunk matching its address.

const crashChildEnv = "VERSO_CHUNKS_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	os.Exit(m.Run())
}

// crashOptions compact often, so that kills also land inside compactions.
var crashOptions = Options{CompactAt: 512 << 10, MaxTables: 3}

func crashChild(dir string) {
	ctx := context.Background()
	s, err := OpenFileStore(dir, crashOptions)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: open:", err)
		os.Exit(3)
	}
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	for {
		root, err := s.Root(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child: root:", err)
			os.Exit(3)
		}
		var list strings.Builder
		fmt.Fprintf(&list, "prev %s\n", root)
		for i, n := 0, 1+r.Intn(80); i < n; i++ {
			a, err := s.Put(ctx, randomChunk(r))
			if err != nil {
				fmt.Fprintln(os.Stderr, "child: put:", err)
				os.Exit(3)
			}
			fmt.Fprintf(&list, "%s\n", a)
		}
		newRoot, err := s.Put(ctx, []byte(list.String()))
		if err == nil {
			err = s.Commit(ctx, newRoot, root)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "child: commit:", err)
			os.Exit(3)
		}
		fmt.Printf("committed %s\n", newRoot)
	}
}

// walkChain reads the chain of roots from root back to the empty root,
// checking every chunk against its address. It returns the roots in the
// chain.
func walkChain(t *testing.T, s Store, root Address) map[Address]bool {
	t.Helper()
	ctx := context.Background()
	roots := map[Address]bool{}
	for !root.IsEmpty() {
		roots[root] = true
		data, err := s.Get(ctx, root)
		if err != nil || Of(data) != root {
			t.Fatalf("root %s unreadable or wrong: %v", root, err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		prev, err := ParseAddress(strings.TrimPrefix(lines[0], "prev "))
		if err != nil {
			t.Fatalf("root %s: bad list: %v", root, err)
		}
		var addrs []Address
		for _, l := range lines[1:] {
			addrs = append(addrs, MustParseAddress(l))
		}
		n := 0
		if err := s.GetMany(ctx, addrs, func(a Address, b []byte) {
			if Of(b) != a {
				t.Errorf("chunk %s holds the wrong bytes", a)
			}
			n++
		}); err != nil || n != len(addrs) {
			t.Fatalf("commit %s: %d of %d chunks readable (err %v)", root, n, len(addrs), err)
		}
		root = prev
	}
	return roots
}

func TestCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	r := rand.New(rand.NewSource(seed(t)))
	dir := t.TempDir()
	kills := 24
	var lastPrinted Address
	total := 0
	for i := 0; i < kills; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Wait for at least one commit, then kill at a random moment.
		first, ok := <-lines
		if !ok {
			cmd.Wait()
			t.Fatalf("child %d printed nothing; stderr: %s", i, stderr.String())
		}
		time.Sleep(time.Duration(r.Intn(400)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		last := first
		n := 1
		for l := range lines {
			last = l
			n++
		}
		cmd.Wait()
		if !strings.HasPrefix(last, "committed ") {
			t.Fatalf("child %d printed %q; stderr: %s", i, last, stderr.String())
		}
		lastPrinted = MustParseAddress(strings.TrimPrefix(last, "committed "))
		total += n

		s, err := OpenFileStore(dir, crashOptions)
		if err != nil {
			t.Fatalf("reopen after kill %d: %v", i, err)
		}
		root, err := s.Root(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		roots := walkChain(t, s, root)
		if !roots[lastPrinted] {
			t.Fatalf("kill %d: the store's root %s does not reach the last acknowledged root %s", i, root, lastPrinted)
		}
		if err := s.Check(context.Background()); err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	t.Logf("%d kills, %d acknowledged commits; files at the end: %v", kills, total, names)
}
