module github.com/verso-db/verso/examples/embed

go 1.26.2

require github.com/verso-db/verso v0.0.0

require (
	github.com/google/btree v1.1.3 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)

replace github.com/verso-db/verso => ../..
