package index

// Stats is a size report of an Index.
type Stats struct {
	Shards int
	Pods   int // indexed pending pods
	Terms  int // required terms and DoNotSchedule constraints indexed
	// Groups counts the distinct compiled rules indexed: the replicas of a
	// workload share one group, which is what the postings name.
	Groups int
	// AlwaysChecked counts the terms without a positive requirement (only
	// NotIn/DoesNotExist, or {}): every event in their scope checks them.
	AlwaysChecked int
	ErrorPods     int    // pods with terms that failed to compile, checked on every event
	SelectorTerms int    // terms scoped by a namespace selector
	TermPostings  int    // posting lists of the reverse (term) index
	LabelPostings int    // posting lists of pending pods' own labels
	Bitmaps       int    // posting lists (of every kind) held as roaring bitmaps; the rest are slices
	TopologyKeys  int    // distinct topology keys, summed over shards
	PostingBytes  uint64 // heap held by the posting tables' slots and by the elements of the posting lists of two groups or more (one group is held in its slot)
}

// Stats returns a size report. It locks each shard for reading in turn, so
// under concurrent writes the figures are per shard consistent only.
func (ix *Index[T]) Stats() Stats {
	st := Stats{Shards: len(ix.shards)}
	count := func(p *posting) {
		if p.big != nil {
			st.Bitmaps++
		}
		st.PostingBytes += p.bytes()
	}
	countTable := func(t *postingTable) {
		st.PostingBytes += uint64(t.slots()) * 12
		for _, p := range t.many {
			if p != nil {
				count(p)
			}
		}
	}
	for _, s := range ix.shards {
		s.mu.RLock()
		st.Pods += s.pods
		for _, g := range s.groups {
			if g == nil {
				continue
			}
			st.Groups++
			n := g.size() // the counts are per pod, as the terms are
			r := g.rules()
			st.Terms += n * len(r.terms)
			if r.flags != 0 {
				st.ErrorPods += n
			}
			for i := range r.terms {
				t := &r.terms[i]
				if t.Err() == nil && !t.Selector.Nothing() && !t.Selector.HasPositive() {
					st.AlwaysChecked += n
				}
				if !t.Scope.Selector().Nothing() {
					st.SelectorTerms += n
				}
			}
		}
		st.TermPostings += s.terms.len()
		st.LabelPostings += s.labels.len()
		countTable(&s.terms)
		countTable(&s.labels)
		for _, p := range s.nsPods {
			count(p)
		}
		count(&s.errs)
		count(&s.anti)
		count(&s.nsSel)
		s.topo.Ascend(func(it *topoItem) bool {
			count(&it.aff)
			count(&it.anti)
			count(&it.spread)
			return true
		})
		st.TopologyKeys += s.topo.Len()
		s.mu.RUnlock()
	}
	return st
}
