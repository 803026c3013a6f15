package chunks

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestBlockAppender appends records of random sizes (within a block,
// across blocks, several blocks long) to a file with a header and a
// reserve of zeros, starting over at random, and checks after every append
// that the file holds the model's bytes up to the offset and zeros after
// it to the end of the reserve (or of the last block written), through
// direct writes and through the page cache.
func TestBlockAppender(t *testing.T) {
	for _, mode := range []string{"direct", "page cache"} {
		t.Run(mode, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(mode))))
			path := filepath.Join(t.TempDir(), "log")
			const reserve = 256 << 10
			header := []byte("header of thirty-two bytes, ok.\n")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write(append(append([]byte{}, header...), make([]byte, reserve)...)); err != nil {
				t.Fatal(err)
			}
			a, err := NewBlockAppender(f, path, int64(len(header)), header)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if mode == "page cache" {
				a.Close()
			} else if d, err := openDirect(path); err == nil {
				d.Close()
				if !a.Direct() {
					t.Fatalf("the file system takes direct writes, but the appender writes through the page cache")
				}
			}
			model := append([]byte{}, header...)
			written := int64(len(model)) // how far the file may hold non-zeros
			for i := 0; i < 400; i++ {
				if rng.IntN(50) == 0 {
					// Start over after a new header, as the redo log does.
					h := bytes.ToUpper(header)
					if _, err := f.WriteAt(h, 0); err != nil {
						t.Fatal(err)
					}
					if err := a.Reset(int64(len(h)), h); err != nil {
						t.Fatal(err)
					}
					model = append(model[:0], h...)
				}
				var n int
				switch rng.IntN(4) {
				case 0:
					n = 1 + rng.IntN(20)
				case 1:
					n = 100 + rng.IntN(400)
				case 2:
					n = DirectBlock - 10 + rng.IntN(20)
				default:
					n = rng.IntN(3 * DirectBlock)
				}
				b := make([]byte, n)
				for j := range b {
					b[j] = byte(1 + rng.IntN(255))
				}
				if err := a.Append(b); err != nil {
					t.Fatal(err)
				}
				model = append(model, b...)
				written = max(written, int64(len(model)))
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got[:len(model)], model) {
					t.Fatalf("append %d: the file's first %d bytes are not what was appended", i, len(model))
				}
				if int64(len(got)) < written {
					t.Fatalf("append %d: the file is %d bytes, shorter than the %d written", i, len(got), written)
				}
				// Past the offset: zeros, up to what earlier appends
				// (before a start over) left, which this one's block
				// zeroed up to its end.
				blockEnd := (int64(len(model)) + DirectBlock - 1) &^ (DirectBlock - 1)
				if mode == "page cache" {
					blockEnd = int64(len(model))
				}
				for off := int64(len(model)); off < min(blockEnd, int64(len(got))); off++ {
					if got[off] != 0 {
						t.Fatalf("append %d: byte %d past the offset %d in the last block is %d, not zero", i, off, len(model), got[off])
					}
				}
			}
		})
	}
}

// TestBlockAppenderResetNeedsTheBlock checks that a head shorter than the
// offset's block is refused.
func TestBlockAppenderResetNeedsTheBlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := NewBlockAppender(f, path, 100, make([]byte, 99)); err == nil {
		t.Fatalf("a head of 99 bytes for an offset of 100 in its first block was taken")
	}
	a, err := NewBlockAppender(f, path, DirectBlock+10, make([]byte, 10))
	if err != nil {
		t.Fatalf("the 10 bytes of the offset's block were refused: %v", err)
	}
	a.Close()
}
