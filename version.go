package verso

import "runtime/debug"

// modulePath is this module's path, as build information names it.
const modulePath = "github.com/verso-db/verso"

// Version returns verso's version as the program was built with it: the
// module's version when verso is the main module or a dependency of it
// (v0.3.1, or a pseudo-version), "(devel)" for a build from a checkout.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if info.Main.Path == modulePath && info.Main.Version != "" {
		return info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == modulePath && d.Version != "" {
			return d.Version
		}
	}
	return "(devel)"
}
