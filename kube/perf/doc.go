// Package perf runs kube-scheduler's own scheduler_perf harness
// (k8s.io/kubernetes/test/integration/scheduler_perf, v1.37.2, unmodified)
// on affinityq's event-handling workloads, once with kube-scheduler's default
// plug-ins and once with the affinityq plug-ins in place of InterPodAffinity
// and PodTopologySpread: a real kube-apiserver and etcd per workload, real
// informers, the real scheduling loop and queue.
//
// With AFFINITYQ_PERF_CONFIG naming another performance-config.yaml, it runs
// that file's workloads instead, from its directory: upstream's own suites
// (test/integration/scheduler_perf/affinity and topology_spreading, read
// in place from the k8s.io/kubernetes module), under the same two
// profiles. `make perf PERF_SUITE=affinity` does that.
//
// The profiles run one after the other in the same process, default first;
// AFFINITYQ_PERF_ORDER ("affinityq,default") changes the order, which make
// perf-runs alternates from round to round so that drift within a process
// weighs on both profiles alike.
//
// AFFINITYQ_PERF_CPU_WINDOW ("<after>,<for>,<file>", e.g. "8m,60s,/tmp/w.prof")
// writes a CPU profile of that window of the run, counted from the start
// of the process: the harness's -perf-cpuprofile writes a workload's
// profile only when the workload ends, which one that runs past its limit
// never does. The two cannot be combined (one CPU profile at a time).
//
// It is test code only (BenchmarkPerfScheduling in perf_test.go); this file
// exists to hold the documentation. The workloads are in
// config/performance-config.yaml, the two scheduler configurations in
// config/scheduler-default.yaml and config/scheduler-affinityq.yaml.
//
// Benchmark names read
// BenchmarkPerfScheduling/profile=<default|affinityq>/<test case>/<workload>,
// so `benchstat -col /profile` puts the two profiles side by side. Each
// workload starts an etcd binary found on PATH (`make etcd` builds bin/etcd
// from the etcd module that k8s.io/kubernetes requires), a kube-apiserver
// and a scheduler, and takes from seconds (the integration-test workloads)
// to minutes (the performance ones). Run it through the make targets
// (`make perf-smoke`, `make perf`), or by hand from this directory:
//
//	PATH=$PWD/../../bin:$PATH ARTIFACTS=/tmp/perf-logs go test -run='^$' \
//	    -bench='^BenchmarkPerfScheduling$' -benchtime=1x -timeout=30m \
//	    -perf-scheduling-label-filter=integration-test -data-items-dir=/tmp/perf
//
// -benchtime=1x is required (a workload ignores b.N, and a longer benchtime
// reruns whole workloads); -perf-scheduling-label-filter selects workloads
// by label (integration-test: the smallest; performance: the measured
// sizes); -data-items-dir receives one JSON file of results per profile and
// run (throughput, scheduling duration, the histograms of
// performance-config.yaml's metricsCollectorConfig) and, with
// -perf-cpuprofile, a CPU profile per workload. Do not build it with
// -trimpath: the test kube-apiserver locates its certificate fixtures
// through its source path.
//
// Under the affinityq profile, each workload also reports what the
// wrappers' affinityq_cycle_answers_total and affinityq_cycle_fallbacks_total
// (kube-scheduler's legacy registry) gained while it ran: on its benchmark
// line (answers/op and fallbacks/op, always; answers.<plugin>/op and
// fallbacks.<plugin>.<reason>/op for each series that grew), and in
// AffinityqCycles_affinityq_<run>.json in -data-items-dir, rewritten after
// each workload so that a failed workload, which prints no benchmark line,
// is in it too. The counters are read when the harness's prepare hook runs
// (the scheduler started, no node nor pod yet) and in a cleanup once the
// workload's last op is done, before the harness stops the scheduler and
// resets the registry for the next workload (cycles_test.go).
// scripts/perf-fallbacks-summary.go tabulates the files; `make
// perf-fallbacks` runs every test case of upstream's affinity and
// topology_spreading suites at 5,000 nodes under the affinityq profile
// alone and prints that table.
package perf
