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

func (c *Counts) merge(o Counts) {
	if len(*c) == 0 && len(o) > 0 {
		*c = maps.Clone(o) // the table's memory copied, not each pair rehashed
		return
	}
	for p, n := range o {
		(*c)[p] += n
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
	pods    map[types.UID]*placedPod
	byID    []*placedPod // by id; nil for free ids
	free    []uint32

	// Label postings over placed-pod ids: by namespace, and by namespace,
	// key and value (exists false) or namespace and key (exists true).
	byNS     map[string]*roaring.Bitmap
	postings map[postKey]*roaring.Bitmap

	placedShapes   map[string]*shape  // placed pods' terms, by key
	ownSets        map[string]*ownSet // the placed pods' term lists, by specKey
	incomingShapes map[string]*shape  // incoming pods' questions, by key
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
	rec.obj = n // its taints and fields, which spread's inclusion policies read
	if rec.known && maps.Equal(rec.labels, n.Labels) {
		return nil
	}
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

// InterPodAffinity returns the counts of InterPodAffinity's PreFilter for
// pod (package doc). The maps are the caller's. A pod whose required
// affinity or anti-affinity terms do not compile is an error, as
// kube-scheduler's PreFilter fails it.
func (x *Index) InterPodAffinity(pod *v1.Pod) (AffinityCounts, error) {
	if pod == nil {
		return AffinityCounts{}, errors.New("placed: nil pod")
	}
	terms, err := compileIncoming(pod)
	if err != nil {
		return AffinityCounts{}, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clock++
	res := AffinityCounts{ExistingAntiAffinity: Counts{}, Affinity: Counts{}, AntiAffinity: Counts{}}
	x.matches = x.placedIx.Matching(x.matches[:0], pod)
	for _, m := range x.matches {
		if m.Tag.kind == placedAnti {
			res.ExistingAntiAffinity.merge(m.Tag.counts)
		}
	}
	clear(x.matches)
	if len(terms.Affinity) > 0 {
		res.Affinity.merge(x.incomingShape(pod, incomingAffinity, terms.Affinity, pod.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, nil, nil).counts)
	}
	for i := range terms.AntiAffinity {
		src := pod.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i : i+1]
		res.AntiAffinity.merge(x.incomingShape(pod, incomingTerm, terms.AntiAffinity[i:i+1], nil, src, nil).counts)
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
	incoming, err := compileIncoming(in)
	if err != nil {
		return err
	}
	if node == nil {
		return nil
	}
	inNS := x.nsLabels(in.Namespace)
	for _, t := range ownTerms(pod) {
		if t.kind == placedAnti && t.term.Matches(in.Namespace, in.Labels, inNS) {
			c.ExistingAntiAffinity.add(t.term.TopologyKey, node.Labels, d)
		}
	}
	if len(incoming.Affinity) > 0 && x.incomingMatch(incoming.Affinity, pod) {
		for i := range incoming.Affinity {
			c.Affinity.add(incoming.Affinity[i].TopologyKey, node.Labels, d)
		}
	}
	for i := range incoming.AntiAffinity {
		if t := incoming.AntiAffinity[i : i+1]; x.incomingMatch(t, pod) {
			c.AntiAffinity.add(t[0].TopologyKey, node.Labels, d)
		}
	}
	return nil
}

// ownTerm is a term of a placed pod that compiled, with the use
// InterPodAffinity makes of it and its spec.
type ownTerm struct {
	kind shapeKind
	term *matcher.Term
	src  v1.PodAffinityTerm
}

// ownTerms returns the terms of a placed pod that count in
// InterPodAffinity when an incoming pod matches them. As kube-scheduler's
// PodInfo of a placed pod, a list of terms (required affinity, required
// anti-affinity, preferred affinity, preferred anti-affinity) with a term
// that fails to compile counts as no terms at all.
func ownTerms(pod *v1.Pod) []ownTerm {
	a := pod.Spec.Affinity
	if a == nil {
		return nil
	}
	terms, _ := matcher.CompileTerms(pod)
	var own []ownTerm
	add := func(kind shapeKind, compiled []matcher.Term, src func(i int) v1.PodAffinityTerm) {
		for i := range compiled {
			if compiled[i].Err() != nil {
				return
			}
		}
		for i := range compiled {
			own = append(own, ownTerm{kind, &compiled[i], src(i)})
		}
	}
	if a.PodAntiAffinity != nil {
		add(placedAnti, terms.AntiAffinity, func(i int) v1.PodAffinityTerm {
			return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i]
		})
	}
	if a.PodAffinity != nil {
		add(placedAffinity, terms.Affinity, func(i int) v1.PodAffinityTerm { return a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i] })
		add(placedPreferred, terms.PreferredAffinity, func(i int) v1.PodAffinityTerm {
			return a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm
		})
	}
	if a.PodAntiAffinity != nil {
		add(placedPreferredAnti, terms.PreferredAntiAffinity, func(i int) v1.PodAffinityTerm {
			return a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm
		})
	}
	return own
}

// compileIncoming compiles an incoming pod's terms. A term of its
// affinity, required or preferred, that fails to compile is an error, as
// kube-scheduler's PreFilter and PreScore fail a pod whose PodInfo does not
// parse.
func compileIncoming(pod *v1.Pod) (*matcher.Terms, error) {
	terms, _ := matcher.CompileTerms(pod)
	for _, list := range [][]matcher.Term{terms.Affinity, terms.AntiAffinity, terms.PreferredAffinity, terms.PreferredAntiAffinity} {
		for i := range list {
			if err := list[i].Err(); err != nil {
				return nil, fmt.Errorf("placed: pod %s/%s: %w", pod.Namespace, pod.Name, err)
			}
		}
	}
	return terms, nil
}

// Scores is InterPodAffinity's PreScore topology score: by topology key and
// value, the weighted sum of the terms counted there. A pair where terms
// counted and cancelled out is present with 0, as in kube-scheduler's map.
type Scores map[string]map[string]int64

// at returns the map of key, making it with room for n values.
func (s Scores) at(key string, n int) map[string]int64 {
	m := s[key]
	if m == nil {
		m = make(map[string]int64, n)
		s[key] = m
	}
	return m
}

// scoreSink sums the weighted counts of shapes into Scores: every pair, or
// only the pairs of the nodes given, which is all that Score reads.
type scoreSink struct {
	scores  Scores
	counted bool // a shape counted a pair, whether on the nodes or not
	all     bool
	nodes   []*v1.Node
	values  map[string]*nodeValues // by topology key, once asked for
}

// nodeValues are the distinct values the sink's nodes carry for one key.
type nodeValues struct {
	list []string
	set  map[string]struct{}
}

func (k *scoreSink) add(s *shape, weight int64) {
	if len(s.counts) == 0 {
		return
	}
	k.counted = true
	if k.all {
		// A shape's pairs are mostly of one key: find its map once per
		// run of it.
		var key string
		var m map[string]int64
		for p, n := range s.counts {
			if m == nil || p.Key != key {
				key, m = p.Key, k.scores.at(p.Key, len(s.counts))
			}
			m[p.Value] += weight * n
		}
		return
	}
	for i := range s.terms {
		key := s.terms[i].TopologyKey
		if slices.ContainsFunc(s.terms[:i], func(t matcher.Term) bool { return t.TopologyKey == key }) {
			continue
		}
		vals := k.valuesOf(key)
		if len(vals.list) == 0 {
			continue
		}
		m := k.scores.at(key, len(vals.list))
		// Walk whichever side is smaller: the shape's pairs or the nodes'.
		if len(s.counts) < len(vals.list) {
			for p, n := range s.counts {
				if _, ok := vals.set[p.Value]; ok && p.Key == key {
					m[p.Value] += weight * n
				}
			}
		} else {
			for _, v := range vals.list {
				if n, ok := s.counts[Pair{Key: key, Value: v}]; ok {
					m[v] += weight * n
				}
			}
		}
		if len(m) == 0 {
			delete(k.scores, key)
		}
	}
}

func (k *scoreSink) valuesOf(key string) *nodeValues {
	if vals, ok := k.values[key]; ok {
		return vals
	}
	vals := &nodeValues{set: make(map[string]struct{}, len(k.nodes))}
	for _, n := range k.nodes {
		if v, ok := n.Labels[key]; ok {
			if _, dup := vals.set[v]; !dup {
				vals.set[v] = struct{}{}
				vals.list = append(vals.list, v)
			}
		}
	}
	if k.values == nil {
		k.values = map[string]*nodeValues{}
	}
	k.values[key] = vals
	return vals
}

// ScoreArgs are the InterPodAffinity arguments PreScore reads.
type ScoreArgs struct {
	HardPodAffinityWeight              int32
	IgnorePreferredTermsOfExistingPods bool
}

// InterPodAffinityScores returns the topology score of InterPodAffinity's
// PreScore for pod (scoring.go): the incoming pod's preferred affinity
// (+weight) and anti-affinity (-weight) terms over the placed pods they
// match, and the placed pods' required affinity terms
// (+HardPodAffinityWeight, when positive) and preferred affinity (+weight)
// and anti-affinity (-weight) terms that the incoming pod matches, each at
// the term's key and the value on the placed pod's node. skip is
// kube-scheduler's Skip: when no pair is counted, or when the pod has no
// preferred terms and args ignore the placed pods' preferred terms.
func (x *Index) InterPodAffinityScores(pod *v1.Pod, args ScoreArgs) (scores Scores, skip bool, err error) {
	return x.interPodAffinityScores(pod, args, &scoreSink{all: true})
}

// InterPodAffinityScoresFor is InterPodAffinityScores with the score kept
// only at the pairs the nodes carry: what Score reads when PreScore is
// given those nodes, built in time that follows them rather than every
// domain with a count. skip is InterPodAffinityScores's, decided by every
// pair counted, on these nodes or not.
func (x *Index) InterPodAffinityScoresFor(pod *v1.Pod, args ScoreArgs, nodes []*v1.Node) (scores Scores, skip bool, err error) {
	return x.interPodAffinityScores(pod, args, &scoreSink{nodes: nodes})
}

func (x *Index) interPodAffinityScores(pod *v1.Pod, args ScoreArgs, sink *scoreSink) (Scores, bool, error) {
	if pod == nil {
		return nil, false, errors.New("placed: nil pod")
	}
	a := pod.Spec.Affinity
	hasPreferred := a != nil && (a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
	if args.IgnorePreferredTermsOfExistingPods && !hasPreferred {
		return nil, true, nil
	}
	a = pod.Spec.Affinity
	terms, err := compileIncoming(pod)
	if err != nil {
		return nil, false, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.clock++
	sink.scores = Scores{}
	for i := range terms.PreferredAffinity {
		src := []v1.PodAffinityTerm{a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm}
		sink.add(x.incomingShape(pod, incomingTerm, terms.PreferredAffinity[i:i+1], nil, src, nil), int64(terms.PreferredAffinity[i].Weight))
	}
	for i := range terms.PreferredAntiAffinity {
		src := []v1.PodAffinityTerm{a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm}
		sink.add(x.incomingShape(pod, incomingTerm, terms.PreferredAntiAffinity[i:i+1], nil, src, nil), -int64(terms.PreferredAntiAffinity[i].Weight))
	}
	x.matches = x.placedIx.Matching(x.matches[:0], pod)
	for _, m := range x.matches {
		switch s := m.Tag; s.kind {
		case placedAffinity:
			if args.HardPodAffinityWeight > 0 {
				sink.add(s, int64(args.HardPodAffinityWeight))
			}
		case placedPreferred:
			sink.add(s, int64(s.weight))
		case placedPreferredAnti:
			sink.add(s, -int64(s.weight))
		}
	}
	clear(x.matches)
	x.evict()
	return sink.scores, !sink.counted, nil
}
