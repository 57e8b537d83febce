package session

import (
	"context"
	"strings"
	"testing"
)

const testUUID = "0f8fad5b-d9cb-469f-a165-70867728950e"

// TestPackedIdsStayExact records ids that are, end in, or nearly are
// canonical UUIDs: each must be a session of its own, read back by its
// exact id, through compaction.
func TestPackedIdsStayExact(t *testing.T) {
	ctx := context.Background()
	ids := []string{
		testUUID,
		strings.ToUpper(testUUID),
		"agent-" + testUUID,
		"Agent-" + testUUID,
		testUUID + "-2",
		strings.ReplaceAll(testUUID, "-", ""),
		"0f8fad5b-d9cb-469f-a165-70867728950f",
		"0f8fad5b-d9cb-469f-a165-70867728950g",
		"0f8fad5b-d9cb-469f-a165_70867728950e",
		"00000000-0000-0000-0000-000000000000",
		"ffffffff-ffff-ffff-ffff-ffffffffffff",
		strings.Repeat("p", maxPooledKey-uuidLen) + testUUID,
		strings.Repeat("p", maxPooledKey-uuidLen+1) + testUUID,
		testUUID[1:],
		"",
	}
	m := newTestMemory(t, MemoryOptions{MaxSessions: 4096}, memoryConfig{shards: 1})
	for round := range 2 {
		for i, id := range ids {
			for range i + 1 {
				if _, err := m.Record(ctx, id, Outcome{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		checkInvariants(t, m)
		s := &m.shards[0]
		s.mu.Lock()
		if round == 0 {
			s.compact()
		}
		s.mu.Unlock()
	}
	for i, id := range ids {
		st, err := m.Get(ctx, id)
		if want := uint32(2 * (i + 1)); err != nil || st.Consecutive != want {
			t.Errorf("Get(%q) = %+v, %v; want %d mistakes", id, st, err, want)
		}
	}
	if got := m.Len(); got != len(ids) {
		t.Errorf("Len = %d, want %d", got, len(ids))
	}
}

// FuzzPackUUID checks that packing is exact: an id packs only when
// unpacking gives it back, and keyIs matches only the id itself.
func FuzzPackUUID(f *testing.F) {
	f.Add(testUUID, testUUID)
	f.Add("x-"+testUUID, "x-"+strings.ToUpper(testUUID))
	f.Add(testUUID, testUUID[:35]+"f")
	f.Fuzz(func(t *testing.T, id, other string) {
		var u [16]byte
		if packUUID(id, &u) {
			n := len(id) - uuidLen
			var b [uuidLen]byte
			unpackUUID(b[:], u[:])
			if got := id[:n] + string(b[:]); got != id {
				t.Fatalf("packUUID(%q) unpacks to %q", id, got)
			}
		}
		if !pooled(id) {
			return
		}
		s := &shard{}
		s.init(4, nil)
		idx := s.ents.add()
		s.setKey(idx, id)
		if got := s.key(idx); got != id {
			t.Fatalf("key = %q, want %q", got, id)
		}
		if !s.keyIs(idx, id) || s.keyIs(idx, other) != (id == other) {
			t.Fatalf("keyIs(%q) for %q: want true only for the id itself", other, id)
		}
	})
}
