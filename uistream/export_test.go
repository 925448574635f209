package uistream

import "time"

// SetClock makes a memory store read the time from now.
func SetClock(m *MemoryStore, now func() time.Time) { m.now = now }
