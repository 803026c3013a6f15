// Package bytesize writes byte counts for people: 3.2 MiB, 512 bytes. The
// wire server's messages and the command line share it.
package bytesize

import "fmt"

// Format writes n bytes in the largest binary unit (KiB, MiB, GiB) it
// reaches, to one decimal, or as bytes below 1 KiB.
func Format(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
