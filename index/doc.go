// Package index is a reverse index of pending pods' pod-affinity,
// anti-affinity and topology-spread terms: given a cluster event (an
// assigned pod added, updated or deleted, a node added, updated or deleted,
// a namespace's labels changed) it returns the pending pods the event may
// have made schedulable, in time that follows the size of the answer, not
// of the pool.
//
// It is usable on its own by a scheduler with its own queue (package queue
// is the queue built on it). It is not a queue: it keeps no order, no
// backoff and no attempt counts, and it holds exactly the pods it is given.
//
// # Answers
//
// Every lookup appends a Hit per affected pod, naming the rule sets
// (InterPodAffinity, PodTopologySpread) under which it is affected for both
// policies of DESIGN.md: Relation (a term relates to the event) and
// Transition (kube-scheduler v1.37.2's queueing hints, with upstream issues
// 141354 and 141953 fixed). The rules are written once, in rules.go; the
// index only chooses which pods to ask them about, and fuzz.FuzzIndex
// checks its answers against a naive scan after every event.
//
// Matching answers the question beneath every lookup without the
// requeueing rules: which indexed pods have a term (an affinity or
// anti-affinity term, a spread constraint) that a given pod matches, and
// which terms. An index of any set of terms answers it through the same
// postings, in time that follows the matches: the terms of pods already
// placed, or the questions a scheduling cycle asks about them.
//
// # Structure
//
// Pods live in shards chosen by xxhash of their namespace, except the pods
// whose terms reach into other namespaces (a namespace list or selector) or
// failed to compile, which share shard 0; a locator, sharded by xxhash of
// the UID, records each pod's shard for Remove and Get. Within a shard:
//
//   - pods are grouped by their source, the fields of the pod their rules
//     come from (namespace, labels, required terms, spread constraints;
//     source.go): the replicas of a workload are one group (group.go),
//     which points to the compiled rules, shared and never written, and
//     lists its member pods. Each group has a dense uint32 id (a free list
//     reuses them), and every posting list is a set of group ids or of
//     term entries (a group id and the term posted): held in its 12-byte
//     slot of an open-addressing table (table.go) while it has one
//     element (most postings: a unique label value, one workload's
//     selector), then a sorted slice, then a roaring bitmap above
//     WithPostingThreshold (DefaultPostingThreshold). Adding a replica of
//     an indexed workload appends it to its group and edits no posting;
//   - each required term is posted once per namespace of its scope under an
//     anchor, one of its positive requirements (In before Exists, fewest
//     values first): (namespace, key, value) for In, (namespace, key) for
//     Exists. A term scoped by a namespace selector is posted under the
//     namespace "" and its scope checked per candidate. A term without a
//     positive requirement (only NotIn/DoesNotExist, or {}) is posted under
//     (namespace, no key): always checked, but only for events in its scope.
//     A pod whose terms do not compile is checked on every event, in a
//     group of its own;
//   - pending pods' own labels are posted by (namespace, key, value) and
//     (namespace, key): they answer which pending pods an assigned pod's
//     anti-affinity matches (the symmetric rule);
//   - a github.com/google/btree keyed by topology key lists the groups with an
//     affinity, anti-affinity or spread term on each key, for node events;
//   - the groups with a term scoped by namespace labels are listed for
//     namespace events.
//
// A lookup gathers candidate groups from the postings an event reaches and
// evaluates each candidate's rules exactly, once per group; the candidates
// are a superset of the hits because a term can only match a pod carrying
// its anchor label. A term whose selector is its anchor alone, over a list
// of namespaces, is decided by its postings: the lookup knows which
// versions of the assigned pod match it from the postings that found the
// candidate, and evaluates only the other terms (for most pods of a real
// pool, none). A Hit is never false, unless two posting keys a shard holds
// share their 64-bit hash (group.go): then a lookup may return a pod the
// event does not affect, never miss one.
//
// # Cost model
//
// An assigned-pod event visits the shard of its namespace and shard 0 (when
// it holds pods), or every shard when the assigned pod's anti-affinity
// reaches other namespaces. An update that changes neither the pod's
// labels nor its node affects no one and visits none. In each shard, it
// costs one table probe per label of the assigned pod (two for an update,
// only for the labels that changed), one probe per posting reached, a sort
// of the candidates, one evaluation per candidate group (a few bit
// operations when the postings decide its terms, a selector match per
// other term; groups whose rules have one shape and whose terms the
// postings decide alike share one evaluation when it reads nothing of
// their pods) and one append per affected pod. The candidate groups are
// gathered before they are evaluated, so that their cache misses overlap. With a reused dst it does not allocate, unless the
// assigned pod has required anti-affinity terms of a spec the index has
// not compiled lately (assigned.go). Node
// events visit every shard and walk its topology keys; namespace events
// visit every shard's namespace-selector groups. Add hashes the fields of
// the pod its rules come from (Index.Compile); when they equal those of a
// group's representative the pod takes the group's rules, otherwise it is
// compiled (validating every selector; a pod's terms, their requirements
// and their values take three allocations). A pod with the source of an
// indexed group joins it; otherwise a new group edits one posting per term,
// two per label and one per topology key (a posting of one group lives in
// its 12-byte slot of an open-addressing table and allocates nothing).
// Remove leaves the group, and the last member to leave edits the same
// postings back. A shard's tables (postings, sources) double when 7/8 full
// and halve below 1/8, rehashing under the shard's lock: at 100,000 unique
// pods in 16 shards, about 25,000 entries a table, some 0.2 ms on one core.
//
// Memory: a pod whose rules are its own (a group of one) with two terms and
// two labels takes about 565 bytes of index: its compiled terms with their
// requirements and values 288, its rules 48, its group 80 (with the
// Pending the index keeps for it), five table slots and its locator entry
// the rest. A replica of an indexed workload adds its Pending (40 bytes),
// its locator entry and a member slot: in groups of ten, about 150 bytes a
// pod with its share of the group (BENCHMARKS.md, BenchmarkMemory;
// TestSizes pins the struct sizes).
//
// # Concurrency and invariants
//
// An Index is safe for concurrent use. Each shard has a sync.RWMutex that
// protects all of its fields; each locator shard has one that protects its
// map. Lock order: a locator shard's lock, then a shard's lock; no goroutine
// holds two shard locks or two locator locks at once. Lookups take shard
// read locks one at a time, so they run in parallel with each other and
// with writes to other shards. A lookup sees every Add and Remove that
// returned before it started.
//
// The NamespaceLabels function given to WithNamespaceLabels is called under
// a shard's read lock and must not call back into the Index.
//
// The invariants are written on the shard type; Validate rebuilds every
// derived structure from the indexed pods and compares.
package index
