package queue

import (
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// Option configures New.
type Option func(*options)

type options struct {
	clock                clock.WithTicker
	initialBackoff       time.Duration
	maxBackoff           time.Duration
	unschedulableTimeout time.Duration
	flushInterval        time.Duration
	policy               Policy
	resetOnMove          bool
	nsLabels             func(ns string) (map[string]string, bool)
	less                 func(a, b *PodInfo) bool // WithLess; nil: the default order (Queue.activeOrder)
	logger               logr.Logger
	metrics              Metrics
}

// Defaults of New, after kube-scheduler's defaultPriorityQueueOptions (its
// five-minute unschedulable timeout and 1 s / 10 s backoff) and DESIGN.md.
const (
	DefaultInitialBackoff       = 1 * time.Second
	DefaultMaxBackoff           = 10 * time.Second
	DefaultUnschedulableTimeout = 5 * time.Minute
	DefaultFlushInterval        = 30 * time.Second
	// BackoffFlushInterval is how often Run moves pods whose backoff has
	// expired from backoffQ to activeQ.
	BackoffFlushInterval = 1 * time.Second
)

// defaultOptions is what New starts from: the real clock, the backoff and
// timeouts above, the Relation policy with attempt counters reset on moves,
// namespace labels learnt from NamespaceUpdated, priority-then-age ordering,
// no logging and no metrics.
var defaultOptions = options{
	clock:                clock.RealClock{},
	initialBackoff:       DefaultInitialBackoff,
	maxBackoff:           DefaultMaxBackoff,
	unschedulableTimeout: DefaultUnschedulableTimeout,
	flushInterval:        DefaultFlushInterval,
	policy:               Relation,
	resetOnMove:          true,
	logger:               logr.Discard(),
}

// WithClock sets the clock every time read and every ticker of Run come
// from (default: the real clock). A nil clock keeps the default.
func WithClock(c clock.WithTicker) Option {
	return func(o *options) {
		if c != nil {
			o.clock = c
		}
	}
}

// WithBackoff sets the backoff after a failed attempt: initial after the
// first, doubling with each further attempt, capped at max (defaults 1 s and
// 10 s). Negative durations are taken as 0; a max of 0 disables backoff.
func WithBackoff(initial, max time.Duration) Option {
	return func(o *options) {
		o.initialBackoff, o.maxBackoff = clampNonNegative(initial), clampNonNegative(max)
	}
}

// WithUnschedulableTimeout sets how long a pod may stay in the unschedulable
// pool before the periodic flush moves it anyway (default 5 min).
// A negative duration is taken as 0: every flush moves every pod.
func WithUnschedulableTimeout(d time.Duration) Option {
	return func(o *options) { o.unschedulableTimeout = clampNonNegative(d) }
}

// WithFlushInterval sets how often Run looks for pods that outstayed the
// unschedulable timeout (default 30 s). d must be positive: New panics
// otherwise, as time.NewTicker does.
func WithFlushInterval(d time.Duration) Option {
	return func(o *options) { o.flushInterval = d }
}

// WithPolicy sets the requeue policy (default Relation). New panics on a
// value other than Relation and Transition.
func WithPolicy(p Policy) Option {
	return func(o *options) { o.policy = p }
}

// WithResetOnMove sets whether a pod that the Relation policy moves out of
// the unschedulable pool has its attempt counter reset to 0, so that earlier
// failures do not lengthen its later backoffs (default true). The Transition
// policy always keeps counters.
func WithResetOnMove(reset bool) Option {
	return func(o *options) { o.resetOnMove = reset }
}

// WithNamespaceLabels sets the function that returns a namespace's labels,
// for terms with a namespaceSelector; ok false means an unknown namespace,
// taken to have no labels. Without it (or with nil) the queue keeps the
// labels it is given by NamespaceUpdated.
//
// The function is called with the queue's lock and an index shard's read
// lock held: it must be quick and must not call the Queue.
func WithNamespaceLabels(fn func(ns string) (map[string]string, bool)) Option {
	return func(o *options) { o.nsLabels = fn }
}

// WithLess replaces activeQ's order: less(a, b) reports whether a pops
// before b (default: higher pod priority first, nil counting as 0, then
// older Timestamp). Pods that less does not order pop in the order they
// entered activeQ. A nil less keeps the default. less is called with the
// queue's lock held and must not call the Queue.
func WithLess(less func(a, b *PodInfo) bool) Option {
	return func(o *options) {
		if less != nil {
			o.less = less
		}
	}
}

// WithLogger sets the logger (default: discard). Moves are logged at V(4),
// dropped calls (Done of an unknown pod, Delete of a nil pod) at V(2).
func WithLogger(l logr.Logger) Option {
	return func(o *options) { o.logger = l }
}

// WithMetrics sets the Metrics the queue reports to (default: none).
func WithMetrics(m Metrics) Option {
	return func(o *options) { o.metrics = m }
}

func clampNonNegative(d time.Duration) time.Duration { return max(d, 0) }

// check panics on options that can only come from a programming error.
func (o *options) check() {
	if o.policy != Relation && o.policy != Transition {
		panic(fmt.Sprintf("queue: invalid policy %d", uint8(o.policy)))
	}
	if o.flushInterval <= 0 {
		panic(fmt.Sprintf("queue: non-positive flush interval %v", o.flushInterval))
	}
}
