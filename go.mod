module github.com/verso-db/verso

go 1.26

require (
	github.com/klauspost/compress v1.20.4
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.30.0
)

require github.com/klauspost/cpuid/v2 v2.2.10 // indirect
