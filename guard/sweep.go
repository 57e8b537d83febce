package guard

import (
	"time"

	"github.com/toolguard/toolguard/workspace"
)

// startSweeper removes, while the guard serves, the temporary files a crash
// left in its workspaces (workspace.Open removes them only at start): every
// workspace is swept every TempMaxAge, the shortest of them, so a leftover
// goes within two bounds of the crash. The returned stop ends the sweeps
// and waits for the one under way.
func startSweeper(wss map[string]*workspace.Workspace) (stop func() error) {
	if len(wss) == 0 {
		return func() error { return nil }
	}
	every := time.Duration(0)
	for _, ws := range wss {
		if every == 0 || ws.TempMaxAge() < every {
			every = ws.TempMaxAge()
		}
	}
	ticker := time.NewTicker(every)
	quit, done := make(chan struct{}), make(chan struct{})
	go sweepLoop(wss, ticker.C, quit, done)
	return func() error {
		ticker.Stop()
		close(quit)
		<-done
		return nil
	}
}

// sweepLoop sweeps every workspace at each tick until quit is closed.
func sweepLoop(wss map[string]*workspace.Workspace, tick <-chan time.Time, quit <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-quit:
			return
		case now := <-tick:
			for _, ws := range wss {
				select {
				case <-quit:
					return
				default:
				}
				ws.SweepTemps(now)
			}
		}
	}
}
