package feed

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Option configures Register.
type Option func(*options)

type options struct {
	schedulerNames map[string]bool
	onError        func(error)
}

// defaultOptions are the settings Register starts from; onError is filled
// in by Register (it logs through klog.Background()).
var defaultOptions = options{
	schedulerNames: map[string]bool{v1.DefaultSchedulerName: true},
}

// WithSchedulerNames sets the scheduler names (spec.schedulerName) whose
// pending pods the feed passes to Add, Update and Delete; pending pods of
// other schedulers are ignored (assigned pods count whatever their
// scheduler). Default: "default-scheduler". With no names, no pending pod is
// served.
func WithSchedulerNames(names ...string) Option {
	return func(o *options) {
		o.schedulerNames = make(map[string]bool, len(names))
		for _, n := range names {
			o.schedulerNames[n] = true
		}
	}
}

// WithErrorHandler sets the function that receives the errors returned by
// the Sink and the objects of unexpected types the informers deliver
// (default: logged through klog.Background()). It is called on the
// informers' goroutines.
func WithErrorHandler(fn func(error)) Option {
	return func(o *options) { o.onError = fn }
}

// Registration is the set of handlers Register added.
type Registration struct {
	informers []cache.SharedIndexInformer
	regs      []cache.ResourceEventHandlerRegistration
}

// Register adds handlers that feed s to factory's pod, node and namespace
// informers (creating them in the factory if needed). Start the factory
// afterwards, and wait for HasSynced before relying on s being complete.
func Register(factory informers.SharedInformerFactory, s Sink, opts ...Option) (*Registration, error) {
	if factory == nil {
		return nil, errors.New("feed: nil informer factory")
	}
	if s == nil {
		return nil, errors.New("feed: nil sink")
	}
	o := defaultOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.onError == nil {
		logger := klog.Background().WithName("affinityq-feed")
		o.onError = func(err error) { logger.Error(err, "informer event not fed") }
	}
	h := &handlers{sink: s, names: o.schedulerNames, onError: o.onError}
	r := &Registration{}
	add := func(inf cache.SharedIndexInformer, funcs cache.ResourceEventHandlerFuncs) error {
		reg, err := inf.AddEventHandler(funcs)
		if err != nil {
			return err
		}
		r.informers = append(r.informers, inf)
		r.regs = append(r.regs, reg)
		return nil
	}
	core := factory.Core().V1()
	err := add(core.Pods().Informer(), cache.ResourceEventHandlerFuncs{
		AddFunc: h.podAdded, UpdateFunc: h.podUpdated, DeleteFunc: h.podDeleted,
	})
	if err == nil {
		err = add(core.Nodes().Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: h.nodeAdded, UpdateFunc: h.nodeUpdated, DeleteFunc: h.nodeDeleted,
		})
	}
	if err == nil {
		err = add(core.Namespaces().Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: h.namespaceAdded, UpdateFunc: h.namespaceUpdated, DeleteFunc: h.namespaceDeleted,
		})
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("feed: adding an event handler: %w", err), r.Remove())
	}
	return r, nil
}

// HasSynced reports whether every handler has been given the initial
// contents of its informer.
func (r *Registration) HasSynced() bool {
	for _, reg := range r.regs {
		if !reg.HasSynced() {
			return false
		}
	}
	return true
}

// Remove removes the handlers from their informers. The Sink may still get
// calls that were under way.
func (r *Registration) Remove() error {
	var errs []error
	for i, reg := range r.regs {
		if err := r.informers[i].RemoveEventHandler(reg); err != nil {
			errs = append(errs, fmt.Errorf("feed: removing an event handler: %w", err))
		}
	}
	r.informers, r.regs = nil, nil
	return errors.Join(errs...)
}

// handlers turns informer notifications into Sink calls.
type handlers struct {
	sink    Sink
	names   map[string]bool // served scheduler names; read-only
	onError func(error)
}

func (h *handlers) errorf(format string, args ...any) {
	h.onError(fmt.Errorf("feed: "+format, args...))
}

// object returns obj as a *T, nil unless obj is a non-nil *T.
func object[T any](obj any) *T {
	o, _ := obj.(*T)
	return o
}

// describe names the type of obj for an error, saying when it is a nil
// pointer.
func describe[T any](obj any) string {
	if o, ok := obj.(*T); ok && o == nil {
		return fmt.Sprintf("nil %T", obj)
	}
	return fmt.Sprintf("%T", obj)
}

// unwrap returns the object of a delete notification, unwrapping a
// tombstone; stale reports that it came from one.
func unwrap(obj any) (o any, stale bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj, true
	}
	return obj, false
}

// sameVersion reports whether an update carries the same resource version
// twice (an informer resync): nothing changed.
func sameVersion(oldRV, newRV string) bool {
	return oldRV != "" && oldRV == newRV
}
