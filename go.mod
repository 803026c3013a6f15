module github.com/verso-db/verso

go 1.26

require (
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/zeebo/xxh3 v1.1.0
)

require (
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
