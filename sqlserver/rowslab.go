package sqlserver

// maxSlabRows is the most rows whose values one allocation of a rowSlab
// holds.
const maxSlabRows = 64

// rowSlab hands out the value arrays of a result's rows a slab at a time:
// the first allocation holds one row, each next twice the rows of the one
// before, up to maxSlabRows, so that a scan of many rows allocates once
// every 64 of them and a lookup of one row no more than it needs. A row
// the caller keeps keeps its slab (at most maxSlabRows rows) alive. The
// zero value is ready.
type rowSlab[T any] struct {
	free []T
	rows int // rows the last allocation held
}

// row returns room for a row of n values, apart from every other row's
// (its capacity is n).
func (s *rowSlab[T]) row(n int) []T {
	if len(s.free) < n {
		s.rows = min(max(2*s.rows, 1), maxSlabRows)
		s.free = make([]T, n*s.rows)
	}
	r := s.free[:n:n]
	s.free = s.free[n:]
	return r
}
