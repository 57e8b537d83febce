//go:build !linux

package workspace

import (
	"io/fs"
	"os"
	"time"
)

// statTimes returns zero times: this build does not read them.
func statTimes(fs.FileInfo) (accessed, changed time.Time) { return time.Time{}, time.Time{} }

// birthTime returns the zero time: this build does not read it.
func birthTime(*os.Root, string) time.Time { return time.Time{} }
