//go:build race

package queue_test

// raceEnabled: under the race detector sync.Pool drops a share of what it
// is given on purpose, so a lookup may allocate its scratch anew and
// allocation counts are not the ones a normal build sees.
const raceEnabled = true
