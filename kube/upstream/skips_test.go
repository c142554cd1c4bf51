package upstream

// skipped are, per upstream package, the top-level tests that check the
// in-tree plugin's internals rather than public results, each with why.
// They would test upstream's code, not the wrapper's, or fail only because
// the wrapper keeps its own state.
var skipped = map[string]map[string]string{
	"interpodaffinity": {
		"TestPreFilterStateAddRemovePod":                   "compares the unexported preFilterState that PreFilter, AddPod and RemovePod leave in the CycleState",
		"TestPreFilterStateClone":                          "tests the unexported preFilterState's Clone",
		"TestGetTPMapMatchingIncomingAffinityAntiAffinity": "calls the unexported getIncomingAffinityAntiAffinityCounts",
		"Test_isSchedulableAfterAssignedPodChange":         "calls the unexported QueueingHintFn, which the wrapper registers unchanged",
		"Test_isSchedulableAfterTargetPodUpdateLabel":      "calls the unexported QueueingHintFn, which the wrapper registers wrapped (it first records the pod's version)",
		"Test_isSchedulableAfterNodeChange":                "calls the unexported QueueingHintFn, which the wrapper registers unchanged",
	},
	"podtopologyspread": {
		"TestPreFilterState":                       "compares the unexported preFilterState that PreFilter leaves in the CycleState",
		"TestPreFilterStateAddPod":                 "compares the unexported preFilterState that AddPod leaves in the CycleState",
		"TestPreFilterStateRemovePod":              "compares the unexported preFilterState that RemovePod leaves in the CycleState",
		"TestPreScoreStateEmptyNodes":              "compares the unexported preScoreState that PreScore leaves in the CycleState",
		"Test_isSchedulableAfterNodeChange":        "calls the unexported QueueingHintFn, which the wrapper registers unchanged",
		"Test_isSchedulableAfterAssignedPodChange": "calls the unexported QueueingHintFn, which the wrapper registers unchanged",
		"Test_isSchedulableAfterTargetPodChange":   "calls the unexported QueueingHintFn, which the wrapper registers wrapped (it first records the pod's version)",
	},
}

// knownFailingTests are the upstream tests (or subtests, by full name) that
// fail through the wrapper, per run (see tableRun.name), each with the
// cause: none. A listed test that passes fails TestUpstreamTables.
var knownFailingTests = map[string]map[string]string{}

func knownFailing(r tableRun) map[string]string {
	k := knownFailingTests[r.name()]
	if k == nil {
		k = map[string]string{}
	}
	return k
}
