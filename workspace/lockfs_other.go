//go:build !linux

package workspace

// lockFileSystem returns "": the platform's mount table is not read.
func lockFileSystem(string) (string, error) { return "", nil }
