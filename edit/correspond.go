package edit

// correspond pairs each new line with the old line it stands for, or -1:
// lines equal once trimmed (a longest common subsequence of the non-blank
// lines; anchored), then one for one where a gap between anchors replaces
// as many old lines as it has new ones.
func correspond(newLines, oldLines []string) (pair []int, anchored []bool) {
	ni, nk := nonBlankKeys(newLines)
	oi, ok := nonBlankKeys(oldLines)
	pair = make([]int, len(newLines))
	for i := range pair {
		pair[i] = -1
	}
	anchored = make([]bool, len(newLines))
	a, b := 0, 0 // the previous anchor's next positions in nk and ok
	for _, m := range lcs(nk, ok) {
		pairGap(pair, ni[a:m[0]], oi[b:m[1]])
		pair[ni[m[0]]], anchored[ni[m[0]]] = oi[m[1]], true
		a, b = m[0]+1, m[1]+1
	}
	pairGap(pair, ni[a:], oi[b:])
	return pair, anchored
}

func pairGap(pair, ni, oi []int) {
	if len(ni) == len(oi) {
		for k := range ni {
			pair[ni[k]] = oi[k]
		}
	}
}

func nonBlankKeys(lines []string) (idx []int, keys []string) {
	for i, l := range lines {
		if k := fuzzyKey(l); k != "" {
			idx, keys = append(idx, i), append(keys, k)
		}
	}
	return idx, keys
}

// maxLCSCells bounds the table of lcs; beyond it only the common head and
// tail are paired.
const maxLCSCells = 1 << 20

// lcs returns the index pairs of a longest common subsequence of a and b.
func lcs(a, b []string) [][2]int {
	var out [][2]int
	h := 0
	for h < len(a) && h < len(b) && a[h] == b[h] {
		out = append(out, [2]int{h, h})
		h++
	}
	t := 0
	for t < len(a)-h && t < len(b)-h && a[len(a)-1-t] == b[len(b)-1-t] {
		t++
	}
	ma, mb := a[h:len(a)-t], b[h:len(b)-t]
	if n, m := len(ma), len(mb); n > 0 && m > 0 && (n+1)*(m+1) <= maxLCSCells {
		// tab[i*(m+1)+j]: the LCS length of ma[i:] and mb[j:].
		tab := make([]int32, (n+1)*(m+1))
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					tab[i*(m+1)+j] = tab[(i+1)*(m+1)+j+1] + 1
				} else {
					tab[i*(m+1)+j] = max(tab[(i+1)*(m+1)+j], tab[i*(m+1)+j+1])
				}
			}
		}
		for i, j := 0, 0; i < n && j < m; {
			switch {
			case ma[i] == mb[j]:
				out = append(out, [2]int{h + i, h + j})
				i, j = i+1, j+1
			case tab[(i+1)*(m+1)+j] >= tab[i*(m+1)+j+1]:
				i++
			default:
				j++
			}
		}
	}
	for k := t; k > 0; k-- {
		out = append(out, [2]int{len(a) - k, len(b) - k})
	}
	return out
}
