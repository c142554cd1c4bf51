package placed

import (
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/affinityq/affinityq/index"
	"github.com/affinityq/affinityq/matcher"
)

// Pair is a topology pair: a node label key and its value.
type Pair struct{ Key, Value string }

// Counts maps topology pairs to counts. A pair whose count is 0 is absent.
type Counts map[Pair]int64

// add adds d at (key, the node's value of key) when the node, of labels
// node, carries key.
func (c Counts) add(key string, node map[string]string, d int64) {
	v, ok := node[key]
	if !ok {
		return
	}
	p := Pair{key, v}
	if n := c[p] + d; n != 0 {
		c[p] = n
	} else {
		delete(c, p)
	}
}

func (c Counts) merge(o Counts) {
	for p, n := range o {
		c[p] += n
	}
}

// AffinityCounts is what InterPodAffinity's PreFilter counts for an
// incoming pod (package doc).
type AffinityCounts struct {
	ExistingAntiAffinity Counts
	Affinity             Counts
	AntiAffinity         Counts
}

// DefaultMaxShapes is the number of incoming pods' shapes an Index keeps
// unless WithMaxShapes says otherwise.
const DefaultMaxShapes = 4096

// Option configures an Index.
type Option func(*options)

type options struct {
	lookupNS  index.NamespaceLabels
	maxShapes int
}

// WithNamespaceLabels gives the index the labels of namespaces, which
// namespace selectors read. Without it every namespace reads as having no
// labels.
func WithNamespaceLabels(fn index.NamespaceLabels) Option {
	return func(o *options) { o.lookupNS = fn }
}

// WithMaxShapes bounds the incoming pods' shapes the index keeps (at least
// one); beyond it the least recently asked is dropped, to be built again
// when asked.
func WithMaxShapes(n int) Option {
	return func(o *options) { o.maxShapes = max(n, 1) }
}

// Index holds nodes and the pods placed on them (package doc).
type Index struct {
	mu   sync.Mutex // guards every field below and the shapes; never held while calling out
	opts options

	nodes map[string]*node
	pods  map[types.UID]*placedPod
	byID  []*placedPod // by id; nil for free ids
	free  []uint32

	// Label postings over placed-pod ids: by namespace, and by namespace,
	// key and value (exists false) or namespace and key (exists true).
	byNS     map[string]*roaring.Bitmap
	postings map[postKey]*roaring.Bitmap

	placedShapes   map[string]*shape // placed pods' required anti-affinity terms, by key
	incomingShapes map[string]*shape // incoming pods' questions, by key
	placedIx       *index.Index[*shape]
	incomingIx     *index.Index[*shape]

	clock   uint64 // questions asked; a shape's used is the clock of its last one
	lastUID uint64 // shapes made, naming their pods in the two indexes
	matches []index.Match[*shape]
}

type node struct {
	labels map[string]string // nil while the node is unknown
	known  bool
	pods   map[*placedPod]struct{}
}

type placedPod struct {
	id   uint32
	pod  *v1.Pod
	node string
	anti []*shape // the shape of each required anti-affinity term that compiled, in spec order
}

type postKey struct {
	ns, key, value string
	exists         bool
}

// New returns an empty Index.
func New(opts ...Option) *Index {
	o := options{maxShapes: DefaultMaxShapes}
	for _, opt := range opts {
		opt(&o)
	}
	return &Index{
		opts:           o,
		nodes:          map[string]*node{},
		pods:           map[types.UID]*placedPod{},
		byNS:           map[string]*roaring.Bitmap{},
		postings:       map[postKey]*roaring.Bitmap{},
		placedShapes:   map[string]*shape{},
		incomingShapes: map[string]*shape{},
		placedIx:       index.New[*shape](index.WithNamespaceLabels(o.lookupNS)),
		incomingIx:     index.New[*shape](index.WithNamespaceLabels(o.lookupNS)),
	}
}

func (x *Index) nsLabels(ns string) map[string]string {
	if x.opts.lookupNS == nil {
		return nil
	}
	l, _ := x.opts.lookupNS(ns)
	return l
}

// SetNode adds a node or replaces its labels. The counts of the pods on it
// move to its new topology pairs.
func (x *Index) SetNode(n *v1.Node) error {
	if n == nil || n.Name == "" {
		return errors.New("placed: nil or unnamed node")
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	rec := x.node(n.Name)
	if rec.known && maps.Equal(rec.labels, n.Labels) {
		return nil
	}
	for p := range rec.pods {
		x.count(p, -1)
	}
	rec.labels, rec.known = maps.Clone(n.Labels), true
	if rec.labels == nil {
		rec.labels = map[string]string{}
	}
	for p := range rec.pods {
		x.count(p, 1)
	}
	return nil
}

// RemoveNode removes a node. Its pods stay placed, counting nowhere until
// the node is set again or they are removed, as a snapshot leaves out a
// node that is gone while its pods remain. An unknown node is an error.
func (x *Index) RemoveNode(name string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	rec, ok := x.nodes[name]
	if !ok || !rec.known {
		return fmt.Errorf("placed: unknown node %q", name)
	}
	for p := range rec.pods {
		x.count(p, -1)
	}
	rec.labels, rec.known = nil, false
	if len(rec.pods) == 0 {
		delete(x.nodes, name)
	}
	return nil
}

// node returns the record of a node, making an unknown one.
func (x *Index) node(name string) *node {
	rec, ok := x.nodes[name]
	if !ok {
		rec = &node{pods: map[*placedPod]struct{}{}}
		x.nodes[name] = rec
	}
	return rec
}

// AddPod places a pod on the node its spec.nodeName names (the node may be
// set later). The pod and its labels must not be modified while it is
// placed; UpdatePod replaces it.
func (x *Index) AddPod(pod *v1.Pod) error {
	if err := checkPod(pod); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, dup := x.pods[pod.UID]; dup {
		return fmt.Errorf("placed: pod %s/%s (%s) is already placed", pod.Namespace, pod.Name, pod.UID)
	}
	x.add(pod)
	return nil
}

// UpdatePod replaces a placed pod with a new version of it (labels, node,
// terms). An unknown pod is an error.
func (x *Index) UpdatePod(pod *v1.Pod) error {
	if err := checkPod(pod); err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	p, ok := x.pods[pod.UID]
	if !ok {
		return fmt.Errorf("placed: pod %s/%s (%s) is not placed", pod.Namespace, pod.Name, pod.UID)
	}
	x.remove(p)
	x.add(pod)
	return nil
}

// RemovePod removes a placed pod; it reports whether the pod was placed.
func (x *Index) RemovePod(uid types.UID) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	p, ok := x.pods[uid]
	if ok {
		x.remove(p)
	}
	return ok
}

// Len returns the number of placed pods.
func (x *Index) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.pods)
}

func checkPod(pod *v1.Pod) error {
	switch {
	case pod == nil:
		return errors.New("placed: nil pod")
	case pod.UID == "":
		return fmt.Errorf("placed: pod %s/%s has no UID", pod.Namespace, pod.Name)
	case pod.Spec.NodeName == "":
		return fmt.Errorf("placed: pod %s/%s has no node", pod.Namespace, pod.Name)
	}
	return nil
}

func (x *Index) add(pod *v1.Pod) {
	p := &placedPod{pod: pod, node: pod.Spec.NodeName}
	if n := len(x.free); n > 0 {
		p.id = x.free[n-1]
		x.free = x.free[:n-1]
		x.byID[p.id] = p
	} else {
		p.id = uint32(len(x.byID))
		x.byID = append(x.byID, p)
	}
	x.pods[pod.UID] = p
	x.post(p, true)
	terms, _ := matcher.CompileRequired(pod)
	for i := range terms.AntiAffinity {
		if terms.AntiAffinity[i].Err() != nil {
			continue // a term that fails to compile matches no pod
		}
		s := x.placedShape(pod, i, &terms.AntiAffinity[i])
		s.refs++
		p.anti = append(p.anti, s)
	}
	x.node(p.node).pods[p] = struct{}{}
	x.count(p, 1)
}

func (x *Index) remove(p *placedPod) {
	x.count(p, -1)
	rec := x.nodes[p.node]
	delete(rec.pods, p)
	if !rec.known && len(rec.pods) == 0 {
		delete(x.nodes, p.node)
	}
	for _, s := range p.anti {
		if s.refs--; s.refs == 0 {
			x.placedIx.Remove(s.uid)
			delete(x.placedShapes, s.key)
		}
	}
	x.post(p, false)
	delete(x.pods, p.pod.UID)
	x.byID[p.id] = nil
	x.free = append(x.free, p.id)
}

// post adds (or removes) p to the label postings.
func (x *Index) post(p *placedPod, add bool) {
	ns := p.pod.Namespace
	edit := func(m map[postKey]*roaring.Bitmap, k postKey) {
		b := m[k]
		switch {
		case add && b == nil:
			b = roaring.New()
			m[k] = b
			fallthrough
		case add:
			b.Add(p.id)
		default:
			b.Remove(p.id)
			if b.IsEmpty() {
				delete(m, k)
			}
		}
	}
	for k, v := range p.pod.Labels {
		edit(x.postings, postKey{ns: ns, key: k, value: v})
		edit(x.postings, postKey{ns: ns, key: k, exists: true})
	}
	b := x.byNS[ns]
	switch {
	case add && b == nil:
		b = roaring.New()
		x.byNS[ns] = b
		fallthrough
	case add:
		b.Add(p.id)
	default:
		b.Remove(p.id)
		if b.IsEmpty() {
			delete(x.byNS, ns)
		}
	}
}

// count adds d times p's contribution to every shape it counts in: its own
// anti-affinity terms' shapes, and the incoming pods' shapes it matches.
// A pod on a node the index does not know counts nowhere.
func (x *Index) count(p *placedPod, d int64) {
	rec := x.nodes[p.node]
	if rec == nil || !rec.known {
		return
	}
	for _, s := range p.anti {
		s.apply(rec.labels, d)
	}
	x.matches = x.incomingIx.Matching(x.matches[:0], p.pod)
	for _, m := range x.matches {
		if s := m.Tag; s.matchedBy(m.Terms) {
			s.apply(rec.labels, d)
		}
	}
	clear(x.matches)
}

// InterPodAffinity returns the counts of InterPodAffinity's PreFilter for
// pod (package doc). The maps are the caller's. A pod whose required
// affinity or anti-affinity terms do not compile is an error, as
// kube-scheduler's PreFilter fails it.
func (x *Index) InterPodAffinity(pod *v1.Pod) (AffinityCounts, error) {
	if pod == nil {
		return AffinityCounts{}, errors.New("placed: nil pod")
	}
	terms, _ := matcher.CompileRequired(pod)
	if err := terms.AffinityErr(); err != nil {
		return AffinityCounts{}, fmt.Errorf("placed: pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clock++
	res := AffinityCounts{ExistingAntiAffinity: Counts{}, Affinity: Counts{}, AntiAffinity: Counts{}}
	x.matches = x.placedIx.Matching(x.matches[:0], pod)
	for _, m := range x.matches {
		res.ExistingAntiAffinity.merge(m.Tag.counts)
	}
	clear(x.matches)
	if len(terms.Affinity) > 0 {
		res.Affinity.merge(x.incomingShape(pod, incomingAffinity, -1, terms.Affinity).counts)
	}
	for i := range terms.AntiAffinity {
		res.AntiAffinity.merge(x.incomingShape(pod, incomingAnti, i, terms.AntiAffinity[i:i+1]).counts)
	}
	x.evict()
	return res, nil
}

// AffinityChange applies to c the change that pod, on node, makes to the
// InterPodAffinity counts of the incoming pod in when it is placed (d = 1)
// or removed (d = -1), without reading or changing the index: the
// per-cycle overlay (nominated pods; preemption's AddPod and RemovePod on a
// cycle's copy of the counts), as kube-scheduler's updateWithPod applies it
// to a cloned PreFilter state. c's maps must be non-nil (InterPodAffinity
// returns such). A pod on a nil node changes nothing.
func (x *Index) AffinityChange(c AffinityCounts, in, pod *v1.Pod, node *v1.Node, d int64) error {
	if in == nil || pod == nil {
		return errors.New("placed: nil pod")
	}
	incoming, _ := matcher.CompileRequired(in)
	if err := incoming.AffinityErr(); err != nil {
		return fmt.Errorf("placed: pod %s/%s: %w", in.Namespace, in.Name, err)
	}
	if node == nil {
		return nil
	}
	own, _ := matcher.CompileRequired(pod)
	inNS := x.nsLabels(in.Namespace)
	for i := range own.AntiAffinity {
		if t := &own.AntiAffinity[i]; t.Matches(in.Namespace, in.Labels, inNS) {
			c.ExistingAntiAffinity.add(t.TopologyKey, node.Labels, d)
		}
	}
	podNS := x.nsLabels(pod.Namespace)
	if matcher.AllMatch(incoming.Affinity, pod.Namespace, pod.Labels, podNS) {
		for i := range incoming.Affinity {
			c.Affinity.add(incoming.Affinity[i].TopologyKey, node.Labels, d)
		}
	}
	for i := range incoming.AntiAffinity {
		if t := &incoming.AntiAffinity[i]; t.Matches(pod.Namespace, pod.Labels, podNS) {
			c.AntiAffinity.add(t.TopologyKey, node.Labels, d)
		}
	}
	return nil
}
