package placed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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
func (c Counts) add(key string, node map[string]string, d int64) { addAt(c, key, node, d) }

// addAt adds d to t at (key, the node's value of key) when the node, of
// labels node, carries key.
func addAt(t Tally, key string, node map[string]string, d int64) {
	if v, ok := node[key]; ok {
		t.Add(key, v, d)
	}
}

// Add adds n at (key, value), deleting the pair when its count becomes 0.
func (c Counts) Add(key, value string, n int64) {
	p := Pair{key, value}
	if n := c[p] + n; n != 0 {
		c[p] = n
	} else {
		delete(c, p)
	}
}

func (c *Counts) merge(o Counts) {
	if len(*c) == 0 && len(o) > 0 {
		*c = maps.Clone(o) // the table's memory copied, not each pair rehashed
		return
	}
	for p, n := range o {
		(*c)[p] += n
	}
}

// DefaultMaxShapes is the number of incoming pods' shapes an Index keeps
// unless WithMaxShapes says otherwise.
const DefaultMaxShapes = 4096

// Option configures an Index.
type Option func(*options)

type options struct {
	lookupNS        index.NamespaceLabels
	maxShapes       int
	taintComparison bool
}

// WithNamespaceLabels gives the index the labels of namespaces, which
// namespace selectors read. Without it every namespace reads as having no
// labels.
func WithNamespaceLabels(fn index.NamespaceLabels) Option {
	return func(o *options) { o.lookupNS = fn }
}

// WithTaintComparisonOperators makes spread constraints that honour taints
// read tolerations with the Gt and Lt operators, as kube-scheduler does
// under its TaintTolerationComparisonOperators gate (alpha, off by
// default; without the option such a toleration tolerates nothing).
func WithTaintComparisonOperators(on bool) Option {
	return func(o *options) { o.taintComparison = on }
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
	// domains counts the known nodes per topology pair (every label of
	// every known node): the domains a spread constraint has when every
	// node carrying its key is eligible.
	domains map[string]map[string]int
	// tainted holds the known nodes with taints: the only ones a spread
	// constraint honouring taints can leave out. nodesGen counts the
	// changes of a node's labels or taints, and of the nodes known;
	// leftMemo is the last answer of which tainted nodes a set of
	// tolerations leaves out (leftOutBy), good while nodesGen stays.
	tainted  map[string]*node
	nodesGen uint64
	leftMemo *leftOut
	pods     map[types.UID]*placedPod
	byID     []*placedPod // by id; nil for free ids
	free     []uint32

	// Label postings over placed-pod ids: by namespace, and by namespace,
	// key and value (exists false) or namespace and key (exists true).
	byNS     map[string]*roaring.Bitmap
	postings map[postKey]*roaring.Bitmap

	placedShapes   map[string]*shape  // placed pods' terms, by key
	ownSets        map[string]*ownSet // the placed pods' term lists, by specKey
	incomingShapes map[string]*shape  // incoming pods' questions, by key
	recent         recency            // the incoming shapes, most recently asked first
	placedIx       *index.Index[*shape]
	incomingIx     *index.Index[*shape]

	clock   uint64 // questions asked; a shape's used is the clock of its last one
	lastUID uint64 // shapes made, naming their pods in the two indexes
	matches []index.Match[*shape]
	keyBuf  []byte // specKey's buffer
}

type node struct {
	name   string
	labels map[string]string // nil while the node is unknown
	obj    *v1.Node          // as last set; nil while unknown
	known  bool
	pods   map[*placedPod]struct{}
}

type placedPod struct {
	id   uint32
	pod  *v1.Pod
	node string
	rec  *node   // the node's record, which lives while it has pods
	own  *ownSet // its terms' shapes; nil when it has no pod affinity
}

// ownSet is the shapes of the terms of placed pods whose pod affinity
// specs are the same (specKey): the replicas of a workload share one, so
// that placing one compiles nothing.
type ownSet struct {
	key    string
	shapes []*shape // as ownTerms lists the terms
	refs   int      // the placed pods holding it
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
		domains:        map[string]map[string]int{},
		tainted:        map[string]*node{},
		pods:           map[types.UID]*placedPod{},
		byNS:           map[string]*roaring.Bitmap{},
		postings:       map[postKey]*roaring.Bitmap{},
		placedShapes:   map[string]*shape{},
		ownSets:        map[string]*ownSet{},
		incomingShapes: map[string]*shape{},
		placedIx:       index.New[*shape](index.WithNamespaceLabels(o.lookupNS)),
		incomingIx:     index.New[*shape](index.WithNamespaceLabels(o.lookupNS)),
	}
}

// nsLabels returns the labels of namespace ns, nil when it has none or
// does not exist.
func (x *Index) nsLabels(ns string) map[string]string {
	l, _ := x.namespace(ns)
	return l
}

// namespace returns the labels of namespace ns and whether it exists.
// Without WithNamespaceLabels every namespace exists, without labels.
func (x *Index) namespace(ns string) (labels map[string]string, exists bool) {
	if x.opts.lookupNS == nil {
		return nil, true
	}
	return x.opts.lookupNS(ns)
}

// incomingMatch reports whether the placed pod pod matches every one of an
// incoming pod's terms as kube-scheduler resolves them: it lists the
// namespaces that exist and a term's namespace selector, other than {},
// selects, so a pod whose namespace does not exist matches only a term
// that names the namespace or selects every one.
func (x *Index) incomingMatch(terms []matcher.Term, pod *v1.Pod) bool {
	labels, exists := x.namespace(pod.Namespace)
	return (exists || reachesMissing(terms, pod.Namespace)) && matcher.AllMatch(terms, pod.Namespace, pod.Labels, labels)
}

// reachesMissing reports whether every one of an incoming pod's terms
// reaches namespace ns though ns does not exist: by name, or with {}.
func reachesMissing(terms []matcher.Term, ns string) bool {
	for i := range terms {
		if s := &terms[i].Scope; !s.All() && !slices.Contains(s.Names(), ns) {
			return false
		}
	}
	return true
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
	if !rec.known || !equality.Semantic.DeepEqual(rec.obj.Spec.Taints, n.Spec.Taints) {
		x.nodesGen++
	}
	rec.obj = n // its taints and fields, which spread's inclusion policies read
	if len(n.Spec.Taints) > 0 {
		x.tainted[n.Name] = rec
	} else {
		delete(x.tainted, n.Name)
	}
	if rec.known && maps.Equal(rec.labels, n.Labels) {
		return nil
	}
	x.nodesGen++
	for p := range rec.pods {
		x.count(p, -1)
	}
	if rec.known {
		x.countDomains(rec.labels, -1)
	}
	rec.labels, rec.known = maps.Clone(n.Labels), true
	if rec.labels == nil {
		rec.labels = map[string]string{}
	}
	x.countDomains(rec.labels, 1)
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
	x.countDomains(rec.labels, -1)
	delete(x.tainted, name)
	x.nodesGen++
	rec.labels, rec.obj, rec.known = nil, nil, false
	if len(rec.pods) == 0 {
		delete(x.nodes, name)
	}
	return nil
}

// countDomains adds d to the count of every pair of a known node's labels.
func (x *Index) countDomains(labels map[string]string, d int) {
	for k, v := range labels {
		m := x.domains[k]
		if m == nil {
			m = map[string]int{}
			x.domains[k] = m
		}
		if m[v] += d; m[v] == 0 {
			delete(m, v)
			if len(m) == 0 {
				delete(x.domains, k)
			}
		}
	}
}

// node returns the record of a node, making an unknown one.
func (x *Index) node(name string) *node {
	rec, ok := x.nodes[name]
	if !ok {
		rec = &node{name: name, pods: map[*placedPod]struct{}{}}
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
	if a := pod.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		p.own = x.ownSet(pod)
		p.own.refs++
	}
	p.rec = x.node(p.node)
	p.rec.pods[p] = struct{}{}
	x.count(p, 1)
}

func (x *Index) remove(p *placedPod) {
	x.count(p, -1)
	rec := x.nodes[p.node]
	delete(rec.pods, p)
	if !rec.known && len(rec.pods) == 0 {
		delete(x.nodes, p.node)
	}
	if o := p.own; o != nil {
		if o.refs--; o.refs == 0 {
			for _, s := range o.shapes {
				if s.refs--; s.refs == 0 {
					x.placedIx.Remove(s.uid)
					delete(x.placedShapes, s.key)
				}
			}
			delete(x.ownSets, o.key)
		}
	}
	x.post(p, false)
	delete(x.pods, p.pod.UID)
	x.byID[p.id] = nil
	x.free = append(x.free, p.id)
}

// ownSet returns the shapes of the terms of the placed pod pod, from the
// set of its spec if one is held, else compiling them into a new set.
func (x *Index) ownSet(pod *v1.Pod) *ownSet {
	x.keyBuf = specKey(x.keyBuf[:0], pod)
	if o, ok := x.ownSets[string(x.keyBuf)]; ok {
		return o
	}
	o := &ownSet{key: string(x.keyBuf)}
	for _, t := range ownTerms(pod) {
		s := x.placedShape(pod, t.kind, t.term, t.src)
		s.refs++
		o.shapes = append(o.shapes, s)
	}
	x.ownSets[o.key] = o
	return o
}

// specKey appends to b what decides a placed pod's terms: its namespace
// (the default of a term's namespaces) and its pod affinity and
// anti-affinity as protobuf, which writes map keys sorted.
func specKey(b []byte, pod *v1.Pod) []byte {
	b = append(b, pod.Namespace...)
	b = append(b, 0)
	a := pod.Spec.Affinity
	if a.PodAffinity != nil {
		b = appendMessage(b, a.PodAffinity)
	} else {
		b = append(b, 0)
	}
	if a.PodAntiAffinity != nil {
		b = appendMessage(b, a.PodAntiAffinity)
	} else {
		b = append(b, 0)
	}
	return b
}

// appendMessage appends a protobuf message to b, its length (plus one, 0
// standing for none) first.
func appendMessage(b []byte, m interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}) []byte {
	n := m.Size()
	b = binary.AppendUvarint(b, uint64(n)+1)
	b = slices.Grow(b, n)
	m.MarshalToSizedBuffer(b[len(b) : len(b)+n]) // cannot fail: the buffer is the message's size
	return b[:len(b)+n]
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
	rec := p.rec
	if !rec.known {
		return
	}
	if p.own != nil {
		for _, s := range p.own.shapes {
			s.apply(rec.labels, d)
		}
	}
	x.matches = x.incomingIx.Matching(x.matches[:0], p.pod)
	_, exists := x.namespace(p.pod.Namespace)
	for _, m := range x.matches {
		switch s := m.Tag; {
		case !s.matchedBy(m.Terms):
		case !exists && !reachesMissing(s.terms, p.pod.Namespace):
		case s.kind == incomingSpread:
			s.countNode(p, rec.labels, d)
		default:
			s.apply(rec.labels, d)
		}
	}
	clear(x.matches)
}
