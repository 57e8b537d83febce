package edit

import (
	"cmp"
	"math"
	"slices"
)

type window struct {
	first int
	sim   float64
	dist  int
}

// scanWindows scores the windows of len(ok) lines of fk from from on, best
// first. A cheap upper bound of each window's similarity decides which get
// their Levenshtein distance computed, best bound first, within a budget.
// With bestOnly it returns the most similar window; otherwise those at
// minSim or above whose distance is close to the best's (closeTo).
func scanWindows(fk, ok []string, from int, minSim float64, bestOnly bool) []window {
	n, k := len(fk), len(ok)
	if k == 0 || from < 0 || n-from < k {
		return nil
	}
	s := &scan{fk: fk, ok: ok, from: from, minSim: minSim, bestOnly: bestOnly, best: -1, bestDist: -1}
	s.bound()
	q := s.candidates()
	if bestOnly {
		s.lev.maxCells = maxHintCells
	}
	var res []window
	// Most searches stop after a few windows (the bounds fall below the
	// best found or the threshold), so the candidates are popped from a
	// heap rather than sorted whole.
	for n := 0; len(q) > 0; n++ {
		c := q.pop()
		need, stop := s.need(c.ub)
		if stop || n >= maxFuzzyEvals || s.lev.cells > s.lev.limit() {
			break
		}
		if w, ok := s.score(int(c.i), c.ub, need); ok {
			res = append(res, w)
		}
	}
	slices.SortStableFunc(res, func(a, b window) int {
		if c := cmp.Compare(b.sim, a.sim); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	if bestOnly && len(res) > 1 {
		res = res[:1]
	}
	return res
}

// scan is one scanWindows: the windows' bounds and the best found so far.
type scan struct {
	fk, ok   []string
	from     int
	minSim   float64
	bestOnly bool
	// ubs and dens hold each window's similarity bound and denominator.
	ubs      []float64
	dens     []int32
	lev      levenshtein
	best     float64
	bestDist int
}

// bound fills ubs and dens from a byte histogram of the difference between
// the window and the old text, kept as the window slides: half its L1 norm
// bounds the edit distance from below.
func (s *scan) bound() {
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
	// |old+1|-|old| is 1, or -1 when old < 0; |old-1|-|old| is 1, or -1
	// when old > 0: the sign bit gives either without a branch.
	in := func(line string) {
		for i := 0; i < len(line); i++ {
			old := diff[line[i]]
			diff[line[i]] = old + 1
			l1 += int(1 + 2*(old>>31))
		}
	}
	out := func(line string) {
		for i := 0; i < len(line); i++ {
			old := diff[line[i]]
			diff[line[i]] = old - 1
			l1 += int(1 + 2*((-old)>>31))
		}
	}
	lenW := 0
	for j := s.from; j < s.from+k; j++ {
		in(s.fk[j])
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
		leaving, entering := s.fk[s.from+i], s.fk[s.from+i+k]
		if leaving != entering {
			out(leaving)
			in(entering)
			lenW += len(entering) - len(leaving)
		}
	}
}

// cand is a window (its index from from) and its similarity bound.
type cand struct {
	ub float64
	i  int32
}

// candQueue is a binary heap of candidates, highest bound first and, among
// equal bounds, the earlier window first: the order a stable sort by bound
// gives, popped lazily.
type candQueue []cand

func (q candQueue) before(a, b int) bool {
	return q[a].ub > q[b].ub || q[a].ub == q[b].ub && q[a].i < q[b].i
}

// candidates returns the heap of the windows whose bound reaches minSim.
func (s *scan) candidates() candQueue {
	n := 0
	for _, ub := range s.ubs {
		if ub >= s.minSim-1e-12 {
			n++
		}
	}
	q := make(candQueue, 0, n)
	for i, ub := range s.ubs {
		if ub >= s.minSim-1e-12 {
			q = append(q, cand{ub, int32(i)})
		}
	}
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
	return q
}

func (q *candQueue) pop() cand {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	*q = h[:last]
	q.down(0)
	return top
}

func (q candQueue) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(q) {
			return
		}
		if c+1 < len(q) && q.before(c+1, c) {
			c++
		}
		if !q.before(c, i) {
			return
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
}

// need returns the similarity a window with bound ub must reach, and stop
// when no window from this one on (bounds decrease) can matter.
func (s *scan) need(ub float64) (need float64, stop bool) {
	need = s.minSim
	if s.bestOnly && s.best >= 0 {
		if ub <= s.best {
			return 0, true
		}
		need = math.Max(need, s.best)
	}
	return need, ub < need-1e-12
}

// score computes window c's distance within its budget.
func (s *scan) score(c int, ub, need float64) (window, bool) {
	D := int(s.dens[c])
	i := s.from + c
	budget := int(math.Floor((1-need)*float64(D) + 1e-9))
	if !s.bestOnly && s.bestDist >= 0 {
		// Only a window close to the best (or better) matters now.
		budget = min(budget, (3*s.bestDist+4)/2)
		if lb := int(math.Ceil((1-ub)*float64(D) - 1e-9)); lb > budget {
			return window{}, false
		}
	}
	dist, ok := s.lev.window(s.fk[i:i+len(s.ok)], s.ok, budget)
	if !ok {
		return window{}, false
	}
	sim := 1.0
	if D > 0 {
		sim = 1 - float64(dist)/float64(D)
	} else if dist > 0 {
		sim = 0
	}
	if sim < s.minSim-1e-12 {
		return window{}, false
	}
	s.best = max(s.best, sim)
	if s.bestDist < 0 || dist < s.bestDist {
		s.bestDist = dist
	}
	return window{i, sim, dist}, true
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
