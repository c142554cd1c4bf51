// Package upstream runs kube-scheduler v1.37.2's own unit tests of the
// InterPodAffinity and PodTopologySpread plugins
// (pkg/scheduler/framework/plugins/{interpodaffinity,podtopologyspread})
// through package affinityq's wrappers. It has no API: its test, TestUpstreamTables,
// is the whole of it.
//
// Nothing of upstream's is copied into this repository. The test reads the
// two packages in the module cache and assembles each under
// internal/<name> with `go test -overlay`: upstream's test files as they
// are, its other files rewritten (New renamed newInTree, the extension
// points the wrapper serves renamed inTree…, a field added to the plugin's
// struct to hold the wrappers), and the directory's own shim.go (built with
// the affinityq_upstream tag), whose New and extension points go through
// affinityq.Plugins.NewInterPodAffinity and NewPodTopologySpread (see
// internal/shim). So a test that builds the plugin with New, or writes its
// struct literal, and then calls PreFilter, Filter, AddPod, RemovePod,
// PreScore, Score or NormalizeScore, gets the wrapper's answers; upstream's
// own unexported functions are left as they are.
//
// The test compiles both packages once, runs each upstream top-level test
// in its own process (a panic loses only that test), and compares the
// failures with two lists in skips_test.go: the tests skipped because they
// inspect the in-tree plugin's internals, and the tests known to fail
// through the wrapper. A failure not on the list, or a listed test that
// passes, fails TestUpstreamTables with the upstream test's output.
// Each package runs twice: as upstream wrote it, and with UIDs given to
// upstream's pods, which have none and which the placed index needs
// (-affinityq.cluster, see package shim), so that the index answers every
// cycle but those of InterPodAffinityHostnameFastPath.
//
// Run it alone with
//
//	cd kube && go test -run TestUpstreamTables -v ./upstream
//
// (or `make upstream-tables` at the repository root); -v also logs, per
// upstream test, who answered its PreFilters and PreScores.
package upstream
