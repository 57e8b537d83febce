package report

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/toolguard/toolguard/eval"
)

var update = flag.Bool("update", false, "write the browser test's screenshot to "+screenshotFile)

// screenshotFile is the picture of the report docs/eval.md shows.
const screenshotFile = "../../docs/img/eval-report.png"

// TestBrowser renders the fixture recording's report and opens it in a
// real headless Chromium (Debian's chromium package, which .ci/run
// installs): the page loads with nothing in the console and no request
// past its own file, shows the headline numbers and an example of every
// code, shows a call's <script> as text, and paints charts. -update writes
// the screenshot to docs/img.
func TestBrowser(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not on PATH (%v): install Debian's chromium package "+
			"(apt-get install chromium; .ci/run does it through scripts/deps.sh); the report's test opens it in a real browser", err)
	}
	s := summarize(t, fixture, eval.Options{Examples: 3, ExampleBytes: 300})
	name := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(name, []byte(render(t, s)), 0o600); err != nil {
		t.Fatal(err)
	}
	url := "file://" + name

	b := openBrowser(t, bin)
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(1100, 1000), chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	headline := map[string]string{"calls": num(s.Calls)}
	for _, c := range eval.Classes {
		headline["n-"+c] = num(s.Classes[c])
	}
	shown := evaluate[map[string]string](t, b.ctx, `Object.fromEntries(Array.from(document.querySelectorAll(".card .n"), e => [e.id, e.textContent]))`)
	if !maps.Equal(shown, headline) {
		t.Errorf("headline numbers %v, want %v", shown, headline)
	}
	examples := evaluate[[]string](t, b.ctx, `Array.from(document.querySelectorAll("tr.example"), e => e.dataset.code)`)
	for _, code := range slices.Concat(slices.Collect(maps.Keys(s.Repairs)), slices.Collect(maps.Keys(s.Violations))) {
		if !slices.Contains(examples, code) {
			t.Errorf("no example of %s on the page (examples of %v)", code, examples)
		}
	}
	if n := evaluate[int](t, b.ctx, `document.scripts.length + document.images.length`); n != 0 {
		t.Errorf("the page holds %d scripts and images: a call's text was not escaped", n)
	}
	if !evaluate[bool](t, b.ctx, `document.body.innerText.includes("<script>alert('x')</script>")`) {
		t.Error("a call's <script> is not shown as text")
	}
	shot, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	checkPainted(t, img)

	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range b.requests {
		if u != url {
			t.Errorf("the page requested %s", u)
		}
	}
	for _, m := range b.console {
		t.Errorf("console: %s", m)
	}
	if *update {
		writeScreenshot(t, img)
	}
}

// browser is a headless Chromium tab and what it saw: the URLs requested
// and the console's warnings, errors and exceptions.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string
	console  []string
}

func openBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	b := &browser{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			b.console = append(b.console, fmt.Sprintf("console.%s called", ev.Type))
		case *runtime.EventExceptionThrown:
			b.console = append(b.console, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				b.console = append(b.console, fmt.Sprintf("%s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func evaluate[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// checkPainted fails a blank screenshot: the page's text and the charts'
// class colours must cover part of it.
func checkPainted(t *testing.T, img image.Image) {
	t.Helper()
	colours := map[string]color.RGBA{
		eval.ClassUsable: {0x2e, 0x7d, 0x32, 0xff}, eval.ClassRepaired: {0x15, 0x65, 0xc0, 0xff}, eval.ClassRefused: {0xc6, 0x28, 0x28, 0xff},
	}
	found := map[string]int{}
	inked, all := 0, img.Bounds().Dx()*img.Bounds().Dy()
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c.R < 0xf0 || c.G < 0xf0 || c.B < 0xf0 {
				inked++
			}
			for k, want := range colours {
				if c == want {
					found[k]++
				}
			}
		}
	}
	if inked < all/20 {
		t.Errorf("the screenshot is nearly blank: %d of %d pixels painted", inked, all)
	}
	for k := range colours {
		if found[k] < 100 {
			t.Errorf("the screenshot shows %d pixels of %s's colour: no chart drawn", found[k], k)
		}
	}
}

// writeScreenshot writes img to docs/img in at most 256 colours, the page's
// most frequent ones, so the picture stays small.
func writeScreenshot(t *testing.T, img image.Image) {
	t.Helper()
	freq := map[color.RGBA]int{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			freq[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	common := slices.SortedFunc(maps.Keys(freq), func(a, b color.RGBA) int {
		return cmp.Or(cmp.Compare(freq[b], freq[a]), cmp.Compare(uint32(a.R)<<16|uint32(a.G)<<8|uint32(a.B), uint32(b.R)<<16|uint32(b.G)<<8|uint32(b.B)))
	})
	var pal color.Palette
	for _, c := range common[:min(256, len(common))] {
		pal = append(pal, c)
	}
	p := image.NewPaletted(img.Bounds(), pal)
	draw.Draw(p, p.Bounds(), img, img.Bounds().Min, draw.Src)
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(screenshotFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", screenshotFile, buf.Len())
}
