package chunks

import (
	"os"
	"slices"
)

func sortAddresses(a []Address) { slices.SortFunc(a, Address.Compare) }

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
