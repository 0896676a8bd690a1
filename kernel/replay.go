package kernel

import "sync"

// recentSignatures is how many signatures of received messages the kernel
// remembers to drop replays, as many as jupyter_client's Session does.
const recentSignatures = 1 << 16

// replayGuard remembers the signatures of the last messages received, so
// that a signed message sent again (captured and replayed, say) is dropped
// instead of served twice. Only the last n are kept: memory stays bounded
// and a replay of an older message is not caught. It is safe for
// concurrent use.
type replayGuard struct {
	mu   sync.Mutex
	n    int
	seen map[string]struct{}
	ring []string // the signatures in seen, oldest at next once full
	next int
}

func newReplayGuard(n int) *replayGuard {
	return &replayGuard{n: n, seen: map[string]struct{}{}}
}

// fresh records sig and reports whether it was not among the recent ones.
// An empty signature (no key) is always fresh.
func (g *replayGuard) fresh(sig []byte) bool {
	if len(sig) == 0 {
		return true
	}
	key := string(sig)
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.seen[key]; dup {
		return false
	}
	g.seen[key] = struct{}{}
	if len(g.ring) < g.n {
		g.ring = append(g.ring, key)
		return true
	}
	delete(g.seen, g.ring[g.next])
	g.ring[g.next] = key
	g.next = (g.next + 1) % g.n
	return true
}
