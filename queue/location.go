package queue

import "fmt"

// Location is where a pod of the queue is.
type Location uint8

const (
	// Active: in activeQ, ready to be popped.
	Active Location = iota + 1
	// Backoff: in backoffQ, waiting for its backoff to expire.
	Backoff
	// Unschedulable: in the unschedulable pool, indexed, waiting for an event.
	Unschedulable
	// InFlight: popped, being scheduled; in no pool.
	InFlight
)

func (l Location) String() string {
	switch l {
	case Active:
		return "Active"
	case Backoff:
		return "Backoff"
	case Unschedulable:
		return "Unschedulable"
	case InFlight:
		return "InFlight"
	}
	return fmt.Sprintf("Location(%d)", uint8(l))
}
