package edit

import (
	"math"
	"sort"
)

type window struct {
	first int
	sim   float64
	dist  int
}

// scanWindows scores windows of len(ok) lines of fk starting at or after
// from. A character histogram, kept as the window slides, bounds each
// window's similarity from above in O(1) per character; only windows whose
// bound reaches the bar get their line-by-line Levenshtein distance
// computed, best bound first, with a distance budget. Work is capped
// (maxFuzzyEvals windows, maxFuzzyCells cells; maxHintCells with
// bestOnly).
//
// With bestOnly it returns the single most similar window (at least minSim);
// otherwise every window at or above minSim that may matter: those whose
// distance is close to the best's (closeTo). Results are sorted by
// similarity, then position.
func scanWindows(fk, ok []string, from int, minSim float64, bestOnly bool) []window {
	n, k := len(fk), len(ok)
	if k == 0 || from < 0 || n-from < k {
		return nil
	}
	var diff [256]int32
	lenO := 0
	for _, s := range ok {
		for i := 0; i < len(s); i++ {
			diff[s[i]]--
		}
		lenO += len(s)
	}
	l1 := lenO
	lenW := 0
	add := func(s string, sign int32) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			old := diff[c]
			nw := old + sign
			diff[c] = nw
			l1 += abs32(nw) - abs32(old)
		}
	}
	for j := from; j < from+k; j++ {
		add(fk[j], 1)
		lenW += len(fk[j])
	}
	nw := n - from - k + 1
	ubs := make([]float64, nw)
	dens := make([]int32, nw)
	for i := 0; ; i++ {
		D := max(lenW, lenO)
		lb := (l1 + abs(lenW-lenO) + 1) / 2
		ub := 1.0
		if D > 0 {
			ub = 1 - float64(lb)/float64(D)
		}
		ubs[i], dens[i] = ub, int32(D)
		if i+1 >= nw {
			break
		}
		s, e := fk[from+i], fk[from+i+k]
		add(s, -1)
		add(e, 1)
		lenW += len(e) - len(s)
	}
	cands := make([]int32, 0, 64)
	for i, ub := range ubs {
		if ub >= minSim-1e-12 {
			cands = append(cands, int32(i))
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return ubs[cands[a]] > ubs[cands[b]] })

	var lev levenshtein
	if bestOnly {
		lev.maxCells = maxHintCells
	}
	var res []window
	best, bestDist := -1.0, -1
	for n, c := range cands {
		ub := ubs[c]
		need := minSim
		if bestOnly && best >= 0 {
			if ub <= best {
				break
			}
			need = math.Max(need, best)
		}
		if ub < need-1e-12 {
			break
		}
		if n >= maxFuzzyEvals || lev.cells > lev.limit() {
			break
		}
		D := int(dens[c])
		i := from + int(c)
		budget := int(math.Floor((1-need)*float64(D) + 1e-9))
		if !bestOnly && bestDist >= 0 {
			// Only a window close to the best (or better) matters now.
			budget = min(budget, (3*bestDist+4)/2)
			if lb := int(math.Ceil((1-ub)*float64(D) - 1e-9)); lb > budget {
				continue
			}
		}
		dist, okd := lev.window(fk[i:i+k], ok, budget)
		if !okd {
			continue
		}
		sim := 1.0
		if D > 0 {
			sim = 1 - float64(dist)/float64(D)
		} else if dist > 0 {
			sim = 0
		}
		if sim < minSim-1e-12 {
			continue
		}
		if sim > best {
			best = sim
		}
		if bestDist < 0 || dist < bestDist {
			bestDist = dist
		}
		res = append(res, window{i, sim, dist})
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

// levenshtein computes bounded Levenshtein distances, reusing its rows, within
// a budget of cells (maxCells, default maxFuzzyCells).
type levenshtein struct {
	row      []int
	cells    int
	maxCells int
}

func (l *levenshtein) limit() int {
	if l.maxCells > 0 {
		return l.maxCells
	}
	return maxFuzzyCells
}

// window sums the distances of paired lines; false when over budget.
func (l *levenshtein) window(a, b []string, budget int) (int, bool) {
	total := 0
	for j := range a {
		if a[j] == b[j] {
			continue
		}
		d := l.dist(a[j], b[j], budget-total)
		total += d
		if total > budget {
			return total, false
		}
	}
	return total, true
}

// dist returns the Levenshtein distance of a and b (bytes) if it is at most
// limit, and some value above limit otherwise.
func (l *levenshtein) dist(a, b string, limit int) int {
	if limit < 0 {
		return 1
	}
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a) == 0 || len(b) == 0 {
		return max(len(a), len(b))
	}
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	la, lb := len(a), len(b)
	if l.cells+la*min(lb, 2*limit+1) > l.limit() {
		l.cells = l.limit() + 1 // out of work: too different, as far as we will look
		return limit + 1
	}
	big := limit + 1
	if cap(l.row) < 2*(lb+1) {
		l.row = make([]int, 2*(lb+1))
	}
	prev, cur := l.row[:lb+1], l.row[lb+1:2*(lb+1)]
	for j := 0; j <= lb; j++ {
		if j <= limit {
			prev[j] = j
		} else {
			prev[j] = big
		}
	}
	for i := 1; i <= la; i++ {
		lo, hi := max(1, i-limit), min(lb, i+limit)
		if lo > hi {
			return big
		}
		if lo == 1 {
			if i <= limit {
				cur[0] = i
			} else {
				cur[0] = big
			}
		} else {
			cur[lo-1] = big
		}
		rowMin := big
		ai := a[i-1]
		for j := lo; j <= hi; j++ {
			v := prev[j-1]
			if ai != b[j-1] {
				v++
			}
			if x := prev[j] + 1; x < v {
				v = x
			}
			if x := cur[j-1] + 1; x < v {
				v = x
			}
			if v > big {
				v = big
			}
			cur[j] = v
			if v < rowMin {
				rowMin = v
			}
		}
		l.cells += hi - lo + 1
		if hi < lb {
			cur[hi+1] = big
		}
		if rowMin > limit {
			return big
		}
		prev, cur = cur, prev
	}
	return prev[lb]
}

func round4(x float64) float64 { return math.Round(x*10000) / 10000 }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func abs32(x int32) int {
	if x < 0 {
		return int(-x)
	}
	return int(x)
}
