package workspace

import (
	"os"
	"slices"
	"testing"
	"time"
)

// TestSweepTemps: a sweep while serving removes the temporary files older
// than the bound at the time given, and keeps younger ones (writes in
// progress), whatever Open was told to remove at start.
func TestSweepTemps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		wantAge time.Duration
	}{
		{"default bound", Options{}, DefaultCleanupMinAge},
		{"own bound", Options{CleanupMinAge: 10 * time.Minute}, 10 * time.Minute},
		{"remove all at open", Options{CleanupMinAge: -1}, DefaultCleanupMinAge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			w := e.open(t, tc.opts)
			if got := w.TempMaxAge(); got != tc.wantAge {
				t.Fatalf("TempMaxAge = %v, want %v", got, tc.wantAge)
			}
			now := time.Now()
			for _, f := range []struct {
				rel string
				age time.Duration
			}{{tempPrefix + "young", tc.wantAge - time.Minute}, {"a/b/" + tempPrefix + "old", tc.wantAge + time.Minute}, {"a/kept.txt", 100 * tc.wantAge}} {
				writeFile(t, e.in(f.rel), "x", 0o600)
				if err := os.Chtimes(e.in(f.rel), now.Add(-f.age), now.Add(-f.age)); err != nil {
					t.Fatal(err)
				}
			}
			w.SweepTemps(now)
			if got, want := tempFiles(t, e.ws), []string{e.in(tempPrefix + "young")}; !slices.Equal(got, want) {
				t.Errorf("left after the sweep: %v, want %v", got, want)
			}
			if readString(t, e.in("a/kept.txt")) != "x" {
				t.Error("a file that is no temporary one was touched")
			}
			// Two minutes on, the young one is old enough too.
			w.SweepTemps(now.Add(2 * time.Minute))
			if got := tempFiles(t, e.ws); len(got) != 0 {
				t.Errorf("left after the second sweep: %v", got)
			}
		})
	}
}
