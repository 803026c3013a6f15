// Package mergemodel is the reference three-way merge that the model tests
// of package tablemerge and of dolt_merge (package sqlserver) check merges
// against: rows of a few integer cells in plain Go maps keyed by primary
// key, merged with the rules of tablemerge.
package mergemodel

// Row is a row of integer cells.
type Row interface{ ~[2]int | ~[3]int | ~[4]int }

// Merge merges ours and theirs key by key over every key of the three
// maps: a change on one side is taken; the same change on both sides is
// taken once; changes to different cells of a row merge cell by cell;
// anything else (different values in one cell, a delete against a change,
// one key inserted with different rows) is a conflict that keeps ours. It
// returns the merged rows and the keys in conflict.
func Merge[R Row](base, ours, theirs map[int]R) (map[int]R, map[int]bool) {
	out, conflicts := map[int]R{}, map[int]bool{}
	keys := map[int]bool{}
	for _, m := range []map[int]R{base, ours, theirs} {
		for k := range m {
			keys[k] = true
		}
	}
	same := func(x, y R, inX, inY bool) bool { return inX == inY && (!inX || x == y) }
	for k := range keys {
		b, inB := base[k]
		o, inO := ours[k]
		th, inT := theirs[k]
		res, in := o, inO
		switch {
		case same(o, th, inO, inT) || same(b, th, inB, inT):
		case same(b, o, inB, inO):
			res, in = th, inT
		case !inB || !inO || !inT:
			conflicts[k] = true
		default:
			for i := 0; i < len(res); i++ {
				switch {
				case o[i] == th[i] || b[i] == th[i]:
				case b[i] == o[i]:
					res[i] = th[i]
				default:
					conflicts[k] = true
				}
			}
			if conflicts[k] {
				res = o
			}
		}
		if in {
			out[k] = res
		}
	}
	return out, conflicts
}
