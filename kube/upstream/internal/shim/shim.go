// Package shim routes the scheduling cycles of kube-scheduler's own unit
// tests of InterPodAffinity and PodTopologySpread through package affinityq's
// wrappers. It is linked only into the test binaries that package upstream
// assembles: each assembled upstream package has a small file (shim.go,
// built with the affinityq_upstream tag) whose New and extension points
// call a Cell.
//
// A Cell builds one wrapper per feature set a test asks for (tests set the
// in-tree plugin's gate fields after New) on the test's framework handle.
// The wrappers need a SharedInformerFactory and a snapshot: where the
// handle has no factory (upstream's plugintesting.SetupPlugin), the Cell
// gives it an empty one, which it starts; where there is no handle at all
// (a test that writes the plugin's struct literal), it makes one, with an
// empty factory and an empty snapshot. Every PreFilter and PreScore logs,
// through the context's logger, who answered it: the index, or the in-tree
// plugin and why (see AnsweredIndex). Nothing here is meant for use outside
// those tests.
package shim

import (
	"context"
	"flag"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/affinityq/affinityq/kube/affinityq"
)

// cluster is the test binary's -affinityq.cluster flag: make the test's
// world look like a cluster's where upstream's tables are written in a way
// that makes the wrapper hand the cycle to the in-tree plugin without
// changing what the in-tree plugin answers: pods without a UID (most of
// upstream's) are given one, derived from the object's address.
// kube-apiserver gives every pod one, the placed index keys pods by it, and
// the wrapper falls back to the in-tree plugin ("sync") for a snapshot
// holding a pod without one; the in-tree plugins never read UIDs.
var cluster = flag.Bool("affinityq.cluster", false, "give pods UIDs, which the in-tree plugins never read (see package shim)")

// Cluster reports whether -affinityq.cluster is set.
func Cluster() bool { return *cluster }

// Marker starts every log line of Wrapper.log; package upstream matches
// it (by value: it does not import this package).
const Marker = "affinityq-upstream"

// Kind says which wrapper a Cell builds.
type Kind int

// The wrappers.
const (
	InterPodAffinity Kind = iota
	PodTopologySpread
)

// Cell holds the wrappers of one upstream plugin value. Its zero value is a
// plugin built without New (a struct literal), whose wrappers are built on
// a stand-in handle. It is safe for concurrent use.
type Cell struct {
	mu    sync.Mutex // protects the fields below
	ready bool
	kind  Kind
	ctx   context.Context
	args  runtime.Object
	h     fwk.Handle
	fts   feature.Features
	// own is the stand-in informer factory, which the Cell starts; nil
	// when the test's handle has one.
	own   informers.SharedInformerFactory
	built map[feature.Features]*Wrapper
}

// Init records what New was called with and builds the wrapper for fts, so
// that a wrapper's construction error is New's, as upstream's would be.
func (c *Cell) Init(ctx context.Context, kind Kind, args runtime.Object, h fwk.Handle, fts feature.Features) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready, c.kind, c.ctx, c.args, c.fts = true, kind, ctx, args, fts
	if h == nil {
		return fmt.Errorf("shim: nil framework handle")
	}
	c.h = h
	if h.SharedInformerFactory() == nil {
		c.own = standInFactory()
		c.h = withFactory{Handle: h, f: c.own}
	}
	_, err := c.unlockedBuild(fts)
	return err
}

// Features returns the features New was called with (zero for a struct
// literal).
func (c *Cell) Features() feature.Features {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fts
}

// Wrapper returns the wrapper built with fts, building it if needed. A
// struct literal's Cell is first given a stand-in handle and the arguments
// args returns (the literal's fields). It panics where the wrapper cannot
// be built: the test's cycle cannot go through it.
func (c *Cell) Wrapper(ctx context.Context, kind Kind, fts feature.Features, args func() runtime.Object) *Wrapper {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready {
		c.ready, c.kind, c.ctx, c.args, c.fts = true, kind, ctx, args(), fts
		c.own = standInFactory()
		h, err := frameworkruntime.NewFramework(ctx, nil, nil,
			frameworkruntime.WithSnapshotSharedLister(cache.NewEmptySnapshot()),
			frameworkruntime.WithInformerFactory(c.own))
		if err != nil {
			panic(fmt.Sprintf("shim: a stand-in framework: %v", err))
		}
		c.h = h
	}
	w, err := c.unlockedBuild(fts)
	if err != nil {
		panic(fmt.Sprintf("shim: building the wrapper with %+v: %v", fts, err))
	}
	return w
}

// unlockedBuild returns the wrapper for fts, building it; c.mu is held.
func (c *Cell) unlockedBuild(fts feature.Features) (*Wrapper, error) {
	if w := c.built[fts]; w != nil {
		return w, nil
	}
	ps := affinityq.New(affinityq.WithFeatures(fts))
	build := ps.NewInterPodAffinity
	if c.kind == PodTopologySpread {
		build = ps.NewPodTopologySpread
	}
	pl, err := build(c.ctx, c.args, c.h)
	if err != nil {
		return nil, err
	}
	f := c.h.SharedInformerFactory()
	if c.own != nil || len(c.built) > 0 {
		// The stand-in factory is the Cell's to start; a test starts its
		// own after New, so a wrapper built later may need informers the
		// test did not start.
		f.Start(c.ctx.Done())
		f.WaitForCacheSync(c.ctx.Done())
	}
	if c.built == nil {
		c.built = map[feature.Features]*Wrapper{}
	}
	w := &Wrapper{Plugin: pl, plugins: ps, lister: c.h.SnapshotSharedLister()}
	c.built[fts] = w
	return w, nil
}

func standInFactory() informers.SharedInformerFactory {
	// The namespace of upstream's pods, as plugintesting's informers have it.
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ""}}
	return informers.NewSharedInformerFactory(fake.NewClientset(ns), 0)
}

// withFactory is a framework handle given an informer factory.
type withFactory struct {
	fwk.Handle
	f informers.SharedInformerFactory
}

func (h withFactory) SharedInformerFactory() informers.SharedInformerFactory { return h.f }
