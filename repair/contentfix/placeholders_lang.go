package contentfix

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Placeholder comments in the other languages models write them in
// (Chinese, Japanese, Korean, Spanish, Portuguese, French, German, Italian,
// Russian). Word order and inflection vary too much for the English
// grammar, so a comment counts when every word is in this vocabulary and
// the words say "the rest" or "the existing code" is unchanged or omitted.
// Han, kana and Hangul runs are cut into words by longest match.

type placeholderRole uint8

const (
	roleFiller   placeholderRole = iota // articles, particles, "here is"
	roleRest                            // the rest, the others
	roleExisting                        // existing, previous, original
	roleNoun                            // code, function, file...
	roleStatus                          // unchanged, the same
	roleOmit                            // omitted
	roleOmitted                         // omitted, alone enough (省略, 생략)
	roleKeep                            // keep
	roleHere                            // here, below: where the code was
	roleCount
)

func roleWords(r placeholderRole, words string) map[string]placeholderRole {
	m := map[string]placeholderRole{}
	for _, w := range strings.Fields(words) {
		m[w] = r
	}
	return m
}

var foreignVocabulary, cjkMaxRunes = func() (map[string]placeholderRole, int) {
	vocab := map[string]placeholderRole{}
	for _, m := range []map[string]placeholderRole{
		roleWords(roleFiller, "的 了 均 都 全部 仍 仍然 依然 仍旧 为 是 与 和 跟 其中 等 若干 部分 此 "+
			"の は が も を と に で です ます ここ ここに "+
			"는 은 이 가 의 도 을 를 과 와 은요 모두 "+
			"el la los las lo del de y se aquí aqui todo o a os as do da e aqui "+
			"le les l d du des et ici tout "+
			"der die das den dem des und hier alle bleibt bleiben "+
			"il lo gli dei della qui "+
			"и здесь весь всё все остается остаётся не без "+
			"sin sem sans ohne senza mantiene permanece queda reste rimane resta "+
			"como comme wie come как est es está ist è é sont son sind sono são 变更 변경"),
		roleWords(roleRest, "其余 其他 其它 剩余 剩下 余下 后续 残り 他 その他 以降 나머지 "+
			"resto restante demás reste restant restants rest restliche restlicher restlichen restlichem "+
			"übrige übrigen übriger остальной остальная остальное остальные остального остальном остальную остаток"),
		roleWords(roleExisting, "原有 现有 已有 之前 原来 以前 先前 原始 既存 元 以前の 기존 이전 "+
			"existente existentes anterior anteriores original previo existant existante existants précédent "+
			"bestehende bestehender bestehenden vorhandene vorhandener vorhandenen bisherige bisheriger bisherigen "+
			"vorherige vorherigen ursprüngliche ursprünglichen esistente precedente "+
			"существующий существующая существующее существующие существующего прежний прежняя прежнее предыдущий исходный"),
		roleWords(roleNoun, "代码 内容 函数 方法 逻辑 实现 文件 类 模块 导入 样式 配置 组件 测试 行 代码块 "+
			"コード 処理 関数 メソッド 実装 内容 ファイル ロジック 行 "+
			"코드 함수 메서드 메소드 구현 내용 로직 파일 부분 "+
			"código codigo archivo función funciones método métodos implementación lógica contenido clase líneas "+
			"arquivo função funções implementação conteúdo linhas "+
			"code fichier fonction fonctions méthode méthodes implémentation logique contenu classe lignes "+
			"codes datei funktion funktionen methode methoden implementierung logik inhalt klasse zeilen "+
			"codice funzione funzioni metodi implementazione logica contenuto righe "+
			"код кода коде файл файла функция функции функций метод методы методов реализация реализации логика логики содержимое класс класса строки"),
		roleWords(roleStatus, "不变 保持不变 未变 没变 未改变 无变化 没有变化 未修改 未改动 不做修改 无需修改 无需改动 保持原样 原样 照旧 同上 相同 一样 同前 如前 "+
			"変更なし 変更無し 同じ そのまま 変わらず 同様 "+
			"동일 동일함 동일합니다 그대로 그대로입니다 유지 유지됨 유지됩니다 없음 같음 같습니다 "+
			"cambios cambio igual iguales intacto modificar modificaciones alterações alteração inalterado mudanças "+
			"inchangé inchangée inchangés inchangées identique identiques changement changements modification intact pareil "+
			"unverändert gleich unberührt invariato invariata uguale modifiche "+
			"изменений изменился изменилась изменилось изменились изменены изменён изменен меняется прежним "+
			"antes vorher zuvor bisher prima раньше прежде"),
		roleWords(roleOmit, "omitido omitida omitidos omitidas brevedad omis omise omises concision ausgelassen weggelassen gekürzt kürze "+
			"omesso omessa brevità brevidade опущен опущено опущена пропущен пропущено краткости 省略します"),
		roleWords(roleOmitted, "省略 已省略 略 略去 省去 생략 생략됨 생략합니다"),
		roleWords(roleKeep, "保留 保持 beibehalten behalten mantener conservar garder conserver сохранить"),
		roleWords(roleHere, "此处 这里 以下 中间 这儿"),
	} {
		for w, r := range m {
			vocab[w] = r
		}
	}
	longest := 0
	for w := range vocab {
		if !isLatinOrCyrillic(w) {
			longest = max(longest, utf8.RuneCountInString(w))
		}
	}
	return vocab, longest
}()

func isLatinOrCyrillic(w string) bool {
	for _, r := range w {
		if r < utf8.RuneSelf {
			continue
		}
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return false
		}
	}
	return true
}

// foreignPlaceholder applies the vocabulary rule to a comment's lower-cased
// words; any word outside the vocabulary (but a number) means a remark.
func foreignPlaceholder(words []string, decorated bool) bool {
	if len(words) > maxPhraseWords {
		return false
	}
	var has [roleCount]bool
	known := false
	for _, w := range words {
		if isNumber(w) {
			continue
		}
		if isLatinOrCyrillic(w) {
			r, ok := foreignVocabulary[w]
			if !ok {
				return false
			}
			has[r] = true
		} else if !segmentCJK(w, &has) {
			return false
		}
		known = true
	}
	if !known {
		return false
	}
	omit := has[roleOmit] || has[roleOmitted]
	switch {
	case has[roleRest] && (has[roleNoun] || has[roleStatus] || omit || decorated),
		has[roleExisting] && has[roleNoun] && (has[roleStatus] || omit || decorated || has[roleKeep] || has[roleHere]),
		has[roleNoun] && omit,
		has[roleOmitted] || has[roleOmit] && (decorated || has[roleHere]),
		has[roleStatus] && decorated:
		return true
	}
	return false
}

// segmentCJK cuts w into vocabulary words, longest first, marking their
// roles; false when some part is not in the vocabulary.
func segmentCJK(w string, has *[roleCount]bool) bool {
	if len(w) > 120 { // longer than any placeholder phrase
		return false
	}
	for w != "" {
		n := min(cjkMaxRunes, utf8.RuneCountInString(w))
		found := false
		for ; n > 0; n-- {
			end := runeOffset(w, n)
			if r, ok := foreignVocabulary[w[:end]]; ok {
				has[r] = true
				w = w[end:]
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// runeOffset returns the byte offset after the first n runes of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func isNumber(w string) bool {
	return strings.TrimFunc(w, unicode.IsDigit) == ""
}
