package contentfix

import (
	"strings"
	"unicode/utf8"
)

// The phrase grammar runs on every comment line of every file written, and
// nearly all comments are remarks. mayBePlaceholder turns most of them away
// first by a look at each word: every phrase the grammar accepts holds a
// word that only its own vocabularies give, so a comment without one is
// refused without trying the grammar's rules one by one.

// placeholderTriggers are the words one of which every accepted English
// phrase holds, and the ASCII words of the foreign vocabulary's roles of
// which every accepted foreign phrase holds one:
//   - "rest of", "rest", "remainder of", "everything else" open a phrase;
//   - a modifier opens one ("existing code here");
//   - every other phrase ends with a strong status ("tests omitted for
//     brevity", "unchanged"): a copula alone ("remains") or one of
//     strongStatus's phrases, all of whose words the comment then holds;
//   - a foreign phrase needs a word of the rest, the existing code, a
//     status or an omission.
var placeholderTriggers = func() map[string]bool {
	t := map[string]bool{"rest": true, "remainder": true, "everything": true,
		"remains": true, "remain": true, "stays": true, "stay": true}
	for w := range modifiers {
		t[w] = true
	}
	for phrase := range strongStatus {
		for _, w := range strings.Fields(phrase) {
			if !triggerStop[w] {
				t[w] = true
			}
		}
	}
	for w, r := range foreignVocabulary {
		if isASCII(w) && triggerRoles[r] {
			t[w] = true
		}
	}
	return t
}()

// triggerStop are the status phrases' words too common in remarks to be
// worth a trigger; each phrase keeps another (TestTriggersCoverStatus).
var triggerStop = map[string]bool{"the": true, "for": true, "not": true, "no": true, "from": true, "is": true}

// triggerRoles are the foreign roles one of which every accepted foreign
// phrase holds (see foreignPlaceholder's cases).
var triggerRoles = map[placeholderRole]bool{
	roleRest: true, roleExisting: true, roleStatus: true, roleOmit: true, roleOmitted: true,
}

// mayBePlaceholder is false for a comment's lower-cased words that no rule
// of the grammar can accept: none is a trigger, and all are ASCII (a word
// in another script goes to the foreign vocabulary's segmentation).
func mayBePlaceholder(words []string) bool {
	for _, w := range words {
		if placeholderTriggers[w] || !isASCII(w) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
