package bytesize

import "testing"

func TestFormat(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1.0 KiB", 3 << 19: "1.5 MiB", 5 << 30: "5.0 GiB"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
