package edit

import (
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// refScanWindows is scanWindows as it was before the candidates were popped
// from a heap and the bounds updated without branches: a full stable sort
// of the candidates and an abs-based histogram. The search must choose the
// same windows with the same similarities.
func refScanWindows(fk, ok []string, from int, minSim float64, bestOnly bool) []window {
	n, k := len(fk), len(ok)
	if k == 0 || from < 0 || n-from < k {
		return nil
	}
	s := &scan{fk: fk, ok: ok, from: from, minSim: minSim, bestOnly: bestOnly, best: -1, bestDist: -1}
	s.refBound()
	cands := make([]int32, 0, 64)
	for i, ub := range s.ubs {
		if ub >= minSim-1e-12 {
			cands = append(cands, int32(i))
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return s.ubs[cands[a]] > s.ubs[cands[b]] })
	if bestOnly {
		s.lev.maxCells = maxHintCells
	}
	var res []window
	for n, c := range cands {
		ub := s.ubs[c]
		need, stop := s.need(ub)
		if stop || n >= maxFuzzyEvals || s.lev.cells > s.lev.limit() {
			break
		}
		if w, ok := s.score(int(c), ub, need); ok {
			res = append(res, w)
		}
	}
	sort.SliceStable(res, func(a, b int) bool {
		if res[a].sim != res[b].sim {
			return res[a].sim > res[b].sim
		}
		return res[a].first < res[b].first
	})
	if bestOnly && len(res) > 1 {
		res = res[:1]
	}
	return res
}

func (s *scan) refBound() {
	abs32 := func(x int32) int {
		if x < 0 {
			return int(-x)
		}
		return int(x)
	}
	k := len(s.ok)
	var diff [256]int32
	lenO := 0
	for _, line := range s.ok {
		for i := 0; i < len(line); i++ {
			diff[line[i]]--
		}
		lenO += len(line)
	}
	l1 := lenO
	add := func(line string, sign int32) {
		for i := 0; i < len(line); i++ {
			c := line[i]
			old := diff[c]
			nw := old + sign
			diff[c] = nw
			l1 += abs32(nw) - abs32(old)
		}
	}
	lenW := 0
	for j := s.from; j < s.from+k; j++ {
		add(s.fk[j], 1)
		lenW += len(s.fk[j])
	}
	nw := len(s.fk) - s.from - k + 1
	s.ubs = make([]float64, nw)
	s.dens = make([]int32, nw)
	for i := 0; ; i++ {
		D := max(lenW, lenO)
		lb := (l1 + abs(lenW-lenO) + 1) / 2
		ub := 1.0
		if D > 0 {
			ub = 1 - float64(lb)/float64(D)
		}
		s.ubs[i], s.dens[i] = ub, int32(D)
		if i+1 >= nw {
			break
		}
		out, in := s.fk[s.from+i], s.fk[s.from+i+k]
		add(out, -1)
		add(in, 1)
		lenW += len(in) - len(out)
	}
}

// randomLines returns n lines drawn from a few words, so that windows
// repeat (equal bounds and similarities) and resemble each other.
func randomLines(rnd *rand.Rand, n, maxWords int) []string {
	words := []string{"x", "y :=", "return", "err", "nil", "if", "{", "}", "fmt.Println(x)", "for i", "é", "ünï", ""}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range rnd.Intn(maxWords + 1) {
			b.WriteString(words[rnd.Intn(len(words))])
			b.WriteByte(' ')
		}
		out[i] = strings.TrimSpace(b.String())
	}
	return out
}

// TestScanWindowsMatchesReference runs the search and its reference on
// random files and queries, cut from the file and mutated or not.
func TestScanWindowsMatchesReference(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	for iter := range 3000 {
		n := 1 + rnd.Intn(60)
		if iter%50 == 0 {
			n = 2000 + rnd.Intn(4000) // past maxFuzzyEvals windows
		}
		maxWords := 1 + rnd.Intn(12)
		if iter%97 == 0 {
			maxWords = 300 // past the cell budgets
		}
		fk := randomLines(rnd, n, maxWords)
		k := 1 + rnd.Intn(min(n, 8))
		var ok []string
		if rnd.Intn(2) == 0 {
			ok = randomLines(rnd, k, maxWords)
		} else {
			at := rnd.Intn(n - k + 1)
			ok = append([]string(nil), fk[at:at+k]...)
			j := rnd.Intn(k)
			ok[j] += " z"
		}
		from := rnd.Intn(n - k + 2)
		minSim := []float64{0, 0.3, 0.5, 0.8, 0.9, 1}[rnd.Intn(6)]
		bestOnly := rnd.Intn(2) == 0
		got := scanWindows(fk, ok, from, minSim, bestOnly)
		want := refScanWindows(fk, ok, from, minSim, bestOnly)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("iteration %d (n=%d k=%d from=%d minSim=%v bestOnly=%v):\n got %v\nwant %v",
				iter, n, k, from, minSim, bestOnly, got, want)
		}
	}
}

// BenchmarkScanWindows runs the closest-region search (NOT_FOUND) and the
// fuzzy search on 100k lines, against the reference, side by side.
func BenchmarkScanWindows(b *testing.B) {
	src := goSource(100000, 0)
	d := newDoc(src)
	fk := d.fuzzyKeys()
	notFound := newQuery("func nothingLikeThis(x int) {\n\tpanic(\"never written anywhere\")\n\tos.Exit(3)\n}\n").fuzzyKeys()
	old, _ := fuzzyTarget(src, false)
	fuzzy := newQuery(old).fuzzyKeys()
	for _, c := range []struct {
		name     string
		ok       []string
		minSim   float64
		bestOnly bool
	}{{"NOT_FOUND", notFound, 0, true}, {"FUZZY", fuzzy, DefaultFuzzyThreshold, false}} {
		for _, impl := range []struct {
			name string
			scan func([]string, []string, int, float64, bool) []window
		}{{"reference", refScanWindows}, {"heap", scanWindows}} {
			b.Run(c.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					impl.scan(fk, c.ok, 0, c.minSim, c.bestOnly)
				}
			})
		}
	}
}

// FuzzScanWindowsMatchesReference compares the search with its reference
// on the fuzzy keys of arbitrary files and old texts.
func FuzzScanWindowsMatchesReference(f *testing.F) {
	f.Add("a\nb\nc\nb\nc\n", "b\nc\n", uint8(0), true)
	f.Add("func f() {\n\treturn x\n}\nfunc g() {\n\treturn y\n}\n", "func g() {\n  return x\n}\n", uint8(230), false)
	f.Add("x\n\n\ny\n\n", "\n\n", uint8(255), false)
	f.Fuzz(func(t *testing.T, file, old string, sim uint8, bestOnly bool) {
		fk, ok := newDoc(file).fuzzyKeys(), newQuery(old).fuzzyKeys()
		for _, from := range []int{0, len(fk) / 2} {
			minSim := float64(sim) / 255
			got := scanWindows(fk, ok, from, minSim, bestOnly)
			want := refScanWindows(fk, ok, from, minSim, bestOnly)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("from %d, minSim %v, bestOnly %v:\n got %v\nwant %v", from, minSim, bestOnly, got, want)
			}
		}
	})
}
