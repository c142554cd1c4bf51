//go:build !race

package queue_test

// raceEnabled: see race_test.go.
const raceEnabled = false
