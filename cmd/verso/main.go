// Command verso is the command-line program of the verso database.
//
// Usage:
//
//	verso version    print the program's version and its storage format version
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/verso-db/verso/chunks"
)

// version is the release of this build; release builds set it with
// -ldflags "-X main.version=v1.2.3". Development builds report the module
// version recorded by the Go toolchain, if any.
var version = ""

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "verso %s\nstorage format %d\n", moduleVersion(), chunks.FormatVersion)
		return 0
	case "help", "--help", "-h":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "verso: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: verso <command>

commands:
  version   print the program's version and its storage format version
  help      print this message
`)
}

func moduleVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
