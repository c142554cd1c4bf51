# affinityq — thin wrapper over the go command. `make help` lists the targets.

GO            ?= go
FUZZTIME      ?= 10s
LONGFUZZTIME  ?= 5m
BENCHTIME     ?= 1s
BENCHCOUNT    ?= 6
BENCH         ?= .
STATICCHECK   ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: help test vet unit fuzz-short fuzz bench bench-smoke lint tidy-check run kube-test upstream-tables

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

test: vet unit bench-smoke fuzz-short ## the test command: vet, tests with -race, every benchmark once, every fuzz target for FUZZTIME

run: ## the main job: affinityq bench on its default workloads (100,000 pending pods)
	$(GO) run ./cmd/affinityq bench

vet: ## go vet
	$(GO) vet ./...

unit: ## go test -race ./..., then index's and queue's allocation counts without -race (sync.Pool drops on purpose under -race)
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run='^(TestAntiAffinityCache|TestLookupDoesNotAllocate)$$' ./index
	$(GO) test -count=1 -run='^TestEventAllocs$$' ./queue

bench-smoke: ## run every benchmark once at its smallest size so none can rot
	$(GO) test -run='^$$' -bench=. -benchtime=1x -short ./... > /dev/null

fuzz-short: ## every fuzz target for FUZZTIME (default 10s)
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz-all

fuzz: ## long fuzzing: every fuzz target for LONGFUZZTIME (default 5m)
	FUZZTIME=$(LONGFUZZTIME) GO=$(GO) scripts/fuzz-all

BENCHSTAT     ?= golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
RESULTS       ?= bench/results

bench: ## regenerate the benchmark tables (index rows up to 1,000,000 pending pods; placed up to 150,000 placed pods): raw results in bench/results/, benchstat tables printed (BENCH, BENCHTIME, BENCHCOUNT)
	@mkdir -p $(RESULTS)
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) ./matcher > $(RESULTS)/matcher.txt
	AFFINITYQ_BENCH_1M=1 $(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -timeout=180m ./index > $(RESULTS)/index.txt
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -timeout=60m ./queue > $(RESULTS)/queue.txt
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -timeout=60m ./placed > $(RESULTS)/placed.txt
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -cpu=1,2 -timeout=60m ./bench > $(RESULTS)/workloads.txt
	@for f in matcher index queue placed workloads; do echo "== $$f"; $(GO) run $(BENCHSTAT) $(RESULTS)/$$f.txt; done
	$(GO) run ./cmd/affinityq bench -progress=false | tee $(RESULTS)/affinityq-bench.txt
	$(GO) run ./cmd/affinityq bench -progress=false -workloads unique-partner -policies relation -events 200 -naive-events 20 \
		-svg $(RESULTS)/latency.svg -svg-sizes 1000,3000,10000,30000,100000 > /dev/null

lint: vet ## go vet and staticcheck (pinned, through the module proxy) over both modules
	GOBIN=$(BIN) $(GO) install $(STATICCHECK)
	$(BIN)/staticcheck ./...
	cd kube && $(GO) vet ./... && $(BIN)/staticcheck ./...

tidy-check: ## go mod tidy (both modules) and gofmt leave nothing to change
	$(GO) mod tidy -diff
	cd kube && $(GO) mod tidy -diff
	@out=$$(git ls-files -z '*.go' | xargs -0 -r gofmt -l); test -z "$$out" || { echo "gofmt would change: $$out"; exit 1; }

KUBE_TESTFLAGS ?= -race -short

# kube/perf is left to perf-smoke, which runs its unit tests too: building
# scheduler_perf's in-process kube-apiserver with -race costs minutes.
#
# kube/e2e runs bin/kube-scheduler, built here, as a process against an
# in-process kube-apiserver and bin/etcd, with deploy/'s manifests. It runs
# without -race: race-building its kube-apiserver costs minutes too, and the
# scheduler under test is another process, which the flag would not reach.
# Its size follows the race detector: the full variant where KUBE_TESTFLAGS
# has -race (a plain `make kube-test`), -short where it has not (CI's
# KUBE_TESTFLAGS=-short); KUBE_E2E_FLAGS overrides. Never build it with
# -trimpath (its kube-apiserver finds its certificate fixtures through its
# source path).
kube-test: KUBE_E2E_FLAGS ?= $(if $(filter -race,$(KUBE_TESTFLAGS)),,-short)
kube-test: etcd ## the kube/ module (k8s.io/kubernetes v1.37.2): vet, tests of feed, affinityq and its two halves (internal/requeue, internal/cycle) and upstream's tables through the wrappers (KUBE_TESTFLAGS: -race -short), bin/kube-scheduler, and its end-to-end test against a kube-apiserver (kube/e2e)
	cd kube && $(GO) vet ./...
	cd kube && $(GO) test $(KUBE_TESTFLAGS) -count=1 ./feed/... ./affinityq/... ./internal/... ./cmd/... ./upstream/...
	cd kube && $(GO) build -o $(BIN)/kube-scheduler ./cmd/kube-scheduler
	cd kube && PATH="$(BIN):$$PATH" AFFINITYQ_KUBE_SCHEDULER=$(BIN)/kube-scheduler \
		$(GO) test $(KUBE_E2E_FLAGS) -count=1 -timeout=20m ./e2e/...

# kube/upstream: kube-scheduler v1.37.2's own unit tests of InterPodAffinity
# and PodTopologySpread, built from the module cache with the plug-in
# constructors replaced by package affinityq's wrappers (its package documentation
# says how). kube-test runs it too; its test binaries are built without
# -race whatever KUBE_TESTFLAGS says.
upstream-tables: ## kube-scheduler's own InterPodAffinity and PodTopologySpread tests through the wrappers (kube/upstream), with who answered each cycle
	cd kube && $(GO) test -count=1 -v -run '^TestUpstreamTables$$' ./upstream

# scheduler_perf: kube-scheduler v1.37.2's own harness on affinityq's
# event-handling workloads (kube/perf), default plug-ins vs affinityq's.
# Every workload starts its own etcd (bin/etcd, built here from the Go module
# proxy), kube-apiserver and scheduler in-process.

BIN              ?= $(CURDIR)/bin
# PERF_SUITE: affinityq (our event-handling workloads, kube/perf/config), or
# one of upstream's suites read in place from the k8s.io/kubernetes module:
# affinity or topology_spreading (test/integration/scheduler_perf/<suite>).
PERF_SUITE       ?= affinityq
# PERF_CASES (below, per suite) is a regular expression of test-case names,
# or all: every test case of the suite.
PERF_COUNT       ?= 3
PERF_PROFILES    ?= default|affinityq
PERF_TIMEOUT     ?= 12h
# The test cases of upstream's suites that affinityq's goals name.
PERF_CASES_affinity = SchedulingPodAntiAffinity|SchedulingPodMatchingAntiAffinity|SchedulingPodAffinity|SchedulingPreferredPodAffinity|SchedulingPreferredPodAntiAffinity|SchedulingNodeAffinity
PERF_CASES_topology_spreading = TopologySpreading|PreferredTopologySpreading
ifeq ($(PERF_SUITE),affinityq)
PERF_RESULTS     ?= bench/results/perf
PERF_CASES       ?= PodAdd|PodUpdate|PodDelete
# The 10000-pod workloads exist (PERF_SIZES='1000|10000') but are not run by
# default: on 2 cores PodAdd/10000Pods does not finish within the harness's
# fixed 30 minutes per workload under affinityq's plugins, and
# PodDelete/10000Pods has bound 11,930 of its 20,000 blocked pods (3,148
# under the default plugins) when the harness's final barrier (10 minutes a
# namespace) gives up, kube-scheduler's queue walking every parked pod on
# each deletion; PodUpdate/10000Pods takes 3 to 6 minutes under
# affinityq's plugins and 9 to 12 under the default ones, by machine
# (BENCHMARKS.md).
PERF_SIZES       ?= 1000
PERF_WORKLOADS   ?= ($(PERF_SIZES))Pods
PERF_PROF_CASES  ?= $(PERF_CASES)
PERF_PROF_WORKLOADS ?= 1000Pods
# Workload labels the runs select (performance: the 1000- and 10000-pod sizes).
PERF_LABELS      ?= performance
PERF_SUITE_ENV   =
else
PERF_RESULTS     ?= bench/results/perf/$(PERF_SUITE)
PERF_CASES       ?= $(PERF_CASES_$(PERF_SUITE))
# The measured sizes: 2,000 or 5,000 pods on 5,000 nodes, and
# SchedulingNodeAffinity's 10,000, the ceiling (the same harness without
# inter-pod terms). Add 5000Nodes for every case's 1,000-pod size.
PERF_WORKLOADS   ?= 5000Nodes_2000Pods|5000Nodes_5000Pods|5000Nodes_10000Pods
PERF_PROF_CASES  ?= SchedulingPodAffinity|TopologySpreading
PERF_PROF_WORKLOADS ?= 5000Nodes_5000Pods
# Every workload; -bench selects (upstream labels only some of them).
PERF_LABELS      ?=
PERF_SUITE_ENV   = AFFINITYQ_PERF_CONFIG=$(K8S_PERF_DIR)/$(PERF_SUITE)/performance-config.yaml
endif
# Upstream's scheduler_perf suites, in the module cache (read only).
K8S_PERF_DIR = $(shell cd kube && $(GO) list -m -f '{{.Dir}}' k8s.io/kubernetes)/test/integration/scheduler_perf
# The harness puts etcd's data directory and unix socket under TMPDIR
# (socket paths are limited to about 108 bytes). On a slow disk etcd's
# fsyncs pace every API write under both profiles; PERF_TMPDIR=/dev/shm
# keeps etcd's data in memory (BENCHMARKS.md reports which a figure used).
PERF_TMPDIR      ?= /tmp

PERF_OUT   = $(abspath $(PERF_RESULTS))
PERF_ENV   = PATH="$(BIN):$$PATH" TMPDIR=$(PERF_TMPDIR) $(PERF_SUITE_ENV) \
	$(if $(PERF_LONG_HOURS),AFFINITYQ_PERF_PODS_TIMEOUT=$(PERF_LONG_HOURS)h)
perf_cases = $(if $(filter all,$(1)),.*,$(1))
PERF_BENCH = ^BenchmarkPerfScheduling$$/^profile=($(PERF_PROFILES))$$/^($(call perf_cases,$(PERF_CASES)))$$/^($(PERF_WORKLOADS))$$
PERF_PROF_BENCH = ^BenchmarkPerfScheduling$$/^profile=($(PERF_PROFILES))$$/^($(call perf_cases,$(PERF_PROF_CASES)))$$/^($(PERF_PROF_WORKLOADS))$$
# The test binary's flags: one run of each selected workload (a workload
# ignores b.N; a longer -benchtime reruns it whole), logs of failed workloads
# kept in ARTIFACTS. Never build it with -trimpath (the test kube-apiserver
# finds its certificate fixtures through its source path).
PERF_FLAGS = -test.run='^$$' -test.benchtime=1x -test.count=1 -test.timeout=$(PERF_TIMEOUT) \
	-perf-scheduling-label-filter='$(PERF_LABELS)'
PERF_UNITS = .unit:(SchedulingThroughput/Average OR SchedulingThroughput/Perc50 OR SchedulingThroughput/Perc90 OR SchedulingDuration/Duration OR runtime_seconds)

.PHONY: etcd perf perf-build perf-long-build perf-runs perf-cpuprofile perf-smoke perf-fallbacks perf-fallbacks-summary perf-placed

etcd: ## build bin/etcd: etcd v3.7.0 (what k8s.io/kubernetes v1.37.2 requires) from the Go module proxy
	cd kube && $(GO) build -o $(BIN)/etcd ./cmd/etcd

perf-build: ## build bin/perf.test, the scheduler_perf suite (kube/perf)
	cd kube && $(GO) test -c -o $(BIN)/perf.test ./perf

# PERF_LONG_HOURS=N, for a one-off run of a profile that needs hours (the
# default plugins on PodAdd/10000Pods): the perf targets run
# bin/perf-long.test, the suite built against a copy of upstream's harness
# whose fixed waits (30 minutes a workload, 10 a barrier) are N hours
# (scripts/perf-long-build), with the createPods waits N hours too, e.g.
#   make perf-runs PERF_LONG_HOURS=4 PERF_COUNT=1 PERF_PROFILES=default \
#     PERF_CASES=PodAdd PERF_SIZES=10000
PERF_LONG_HOURS ?=
PERF_TEST  = $(BIN)/perf$(if $(PERF_LONG_HOURS),-long).test
PERF_BUILD = $(if $(PERF_LONG_HOURS),perf-long-build,perf-build)
perf-long-build: etcd
	@[ -n "$(PERF_LONG_HOURS)" ] || { echo "perf-long-build: set PERF_LONG_HOURS"; exit 1; }
	GO=$(GO) WAIT='$(PERF_LONG_HOURS)*time.Hour' WORK=$(BIN)/perf-long scripts/perf-long-build $(BIN)/perf-long.test

perf: etcd perf-build perf-runs perf-cpuprofile ## scheduler_perf, default vs affinityq: PERF_COUNT rounds of every workload at PERF_SIZES, then a CPU-profiled round; results in PERF_RESULTS
	$(GO) run $(BENCHSTAT) -col /profile -filter '$(PERF_UNITS)' $(PERF_RESULTS)/perf.txt | tee $(PERF_RESULTS)/benchstat.txt

# Rounds, not -count: each round is a fresh process that runs every selected
# workload under each profile in turn, so drift on the machine hits both
# profiles alike. Odd rounds run the default profile first, even rounds
# affinityq first, so that drift within a process does too (PERF_ORDER, a
# comma-separated profile order, fixes it instead). Each round writes one
# JSON file per profile into raw/, and, for the affinityq profile, one
# AffinityqCycles_affinityq_<run>.json: what affinityq_cycle_answers_total and
# affinityq_cycle_fallbacks_total gained in each workload, which the
# workload's benchmark line also reports (answers/op, fallbacks/op, and
# answers.<plugin>/op, fallbacks.<plugin>.<reason>/op for each series that
# grew). make perf-fallbacks-summary tabulates them.
PERF_ORDER ?=
perf-runs: etcd $(PERF_BUILD)
	rm -rf $(PERF_RESULTS)/raw $(PERF_RESULTS)/logs $(PERF_RESULTS)/perf.txt
	mkdir -p $(PERF_RESULTS)/raw $(PERF_RESULTS)/logs
	@for i in $$(seq $(PERF_COUNT)); do \
		order='$(PERF_ORDER)'; \
		[ -n "$$order" ] || if [ $$((i % 2)) -eq 1 ]; then order=default,affinityq; else order=affinityq,default; fi; \
		echo "perf: round $$i of $(PERF_COUNT), $$order: $(PERF_BENCH)"; \
		(cd kube/perf && $(PERF_ENV) AFFINITYQ_PERF_ORDER=$$order ARTIFACTS=$(PERF_OUT)/logs $(PERF_TEST) $(PERF_FLAGS) \
			-test.bench='$(PERF_BENCH)' -data-items-dir=$(PERF_OUT)/raw) \
			> $(PERF_RESULTS)/round-$$i.txt 2>&1 || { tail -n 50 $(PERF_RESULTS)/round-$$i.txt; exit 1; }; \
		grep -h '^Benchmark' $(PERF_RESULTS)/round-$$i.txt | cut -c1-160; \
		cat $(PERF_RESULTS)/round-$$i.txt >> $(PERF_RESULTS)/perf.txt && rm $(PERF_RESULTS)/round-$$i.txt; \
	done

# A separate round with scheduler_perf's -perf-cpuprofile (a CPU profile of
# each workload's measured window; profiling costs throughput, so these
# numbers are not in the table), summarized by scripts/perf-cpu-summary (the
# shares of the scheduling cycle, the queue, kube-apiserver, the harness, GC)
# and pprof -top: flat, cumulative, and cumulative within the scheduler (the
# profile is the whole test process: kube-apiserver, informers and harness
# too; etcd runs apart and is not in it).
perf-cpuprofile: etcd $(PERF_BUILD)
	rm -rf $(PERF_RESULTS)/cpu
	mkdir -p $(PERF_RESULTS)/cpu $(PERF_RESULTS)/logs
	(cd kube/perf && $(PERF_ENV) ARTIFACTS=$(PERF_OUT)/logs $(PERF_TEST) $(PERF_FLAGS) -perf-cpuprofile \
		-test.bench='$(PERF_PROF_BENCH)' -data-items-dir=$(PERF_OUT)/cpu) > $(PERF_RESULTS)/cpu/run.txt 2>&1 \
		|| { tail -n 50 $(PERF_RESULTS)/cpu/run.txt; exit 1; }
	@for f in $(PERF_RESULTS)/cpu/*-cpu.prof; do \
		{ GO=$(GO) scripts/perf-cpu-summary "$$f" && $(GO) tool pprof -top -nodecount=30 "$$f" \
			&& $(GO) tool pprof -top -cum -nodecount=40 "$$f" \
			&& $(GO) tool pprof -top -cum -nodecount=40 -focus='k8s.io/kubernetes/pkg/scheduler' "$$f"; } \
			> "$${f%.prof}.top.txt" 2>&1 && echo "perf: $${f%.prof}.top.txt"; \
	done

# Every test case of upstream's affinity and topology_spreading suites at
# its 5,000-node sizes, under the affinityq profile alone, PERF_FALLBACKS_COUNT
# rounds (default 1), then the table of each workload's cycle fallbacks by
# plugin and reason (make perf-fallbacks-summary) in
# PERF_FALLBACKS_RESULTS/fallbacks.txt. The workloads, by test case:
#   affinity: SchedulingPodAntiAffinity 5000Nodes, 5000Nodes_2000Pods;
#     SchedulingPodMatchingAntiAffinity 5000Nodes_5000Pods;
#     SchedulingPodAffinity, SchedulingPreferredPodAffinity,
#     SchedulingPreferredPodAntiAffinity, MixedSchedulingBasePod,
#     SchedulingPreferredAffinityWithNSSelector 5000Nodes, 5000Nodes_5000Pods;
#     SchedulingNodeAffinity 5000Nodes, 5000Nodes_10000Pods;
#     SchedulingRequiredPodAntiAffinityWithNSSelector,
#     SchedulingPreferredAntiAffinityWithNSSelector,
#     SchedulingRequiredPodAffinityWithNSSelector 5000Nodes, 5000Nodes_2000Pods;
#     (SchedulingGatedPodsWithPodAffinityImpactForThroughput has no
#     5,000-node size: 1Node_10000GatedPods.)
#   topology_spreading: TopologySpreading, PreferredTopologySpreading
#     5000Nodes, 5000Nodes_5000Pods; DefaultTopologySpreading
#     5000Nodes_10000Pods, 5000Nodes_50000Pods; SchedulingWithNodeInclusionPolicy
#     5000Nodes.
# 28 workloads, each creating 5,000 nodes: hours on 2 cores. A failing
# workload does not stop the others; the target fails at the end, after the
# table (which marks it). PERF_FALLBACKS_WORKLOADS narrows them
# (5Nodes|10Nodes|1Node_10GatedPods: the integration-test sizes, in minutes).
PERF_FALLBACKS_RESULTS   ?= bench/results/perf-fallbacks
PERF_FALLBACKS_WORKLOADS ?= 5000Nodes.*
PERF_FALLBACKS_COUNT     ?= 1
perf-fallbacks: etcd perf-build ## upstream's affinity and topology_spreading suites, every test case at 5,000 nodes, affinityq profile alone; per-workload cycle fallbacks tabulated in PERF_FALLBACKS_RESULTS/fallbacks.txt
	@status=0; for suite in affinity topology_spreading; do \
		$(MAKE) --no-print-directory perf-runs PERF_SUITE=$$suite PERF_PROFILES=affinityq PERF_CASES=all \
			PERF_WORKLOADS='$(PERF_FALLBACKS_WORKLOADS)' PERF_COUNT=$(PERF_FALLBACKS_COUNT) \
			PERF_RESULTS=$(PERF_FALLBACKS_RESULTS)/$$suite || status=1; \
	done; \
	$(GO) run scripts/perf-fallbacks-summary.go $(PERF_FALLBACKS_RESULTS) > $(PERF_FALLBACKS_RESULTS)/fallbacks.txt || status=1; \
	cat $(PERF_FALLBACKS_RESULTS)/fallbacks.txt; exit $$status

perf-fallbacks-summary: ## the table of each affinityq-profile workload's cycle answers and fallbacks by plugin and reason, from the results under PERF_FALLBACKS_RESULTS (any results directory: bench/results/perf/<suite>)
	$(GO) run scripts/perf-fallbacks-summary.go $(PERF_FALLBACKS_RESULTS)

# The placed-pods sweep (kube/perf's PlacedPods): 5,000 nodes holding 5,000,
# 25,000 or 50,000 placed pods, then 1,000 pods with affinity, anti-affinity
# and spread rules over them; PERF_COUNT rounds alternating the profiles'
# order, the benchstat table of both profiles per size in
# PERF_PLACED_RESULTS/benchstat.txt. The question is whether throughput
# stays flat as the placed pods grow.
PERF_PLACED_RESULTS ?= bench/results/perf/placed
perf-placed: etcd perf-build ## the placed-pods sweep: PlacedPods at 5,000 / 25,000 / 50,000 placed pods, both profiles, PERF_COUNT rounds; benchstat in PERF_PLACED_RESULTS
	$(MAKE) --no-print-directory perf-runs PERF_SUITE=affinityq PERF_CASES=PlacedPods \
		PERF_WORKLOADS='5000Nodes_(5000|25000|50000)Placed' PERF_RESULTS=$(PERF_PLACED_RESULTS)
	$(GO) run $(BENCHSTAT) -col /profile -filter '$(PERF_UNITS)' $(PERF_PLACED_RESULTS)/perf.txt | tee $(PERF_PLACED_RESULTS)/benchstat.txt

# NodeFill against what it is the yardstick of (kube/perf's NodeFill):
# upstream's SchedulingPodAntiAffinity and
# SchedulingRequiredPodAntiAffinityWithNSSelector at 5000Nodes_2000Pods, their
# ceiling SchedulingNodeAffinity/5000Nodes_10000Pods, and NodeFill's two
# sizes, the same nodes and pods without the anti-affinity; PERF_COUNT
# rounds, each running the upstream cases then NodeFill, the profiles'
# order alternating by round; every round's lines in
# PERF_FILL_RESULTS/perf.txt, benchstat in PERF_FILL_RESULTS/benchstat.txt.
PERF_FILL_RESULTS ?= bench/results/perf/fill
PERF_FILL_UPSTREAM = SchedulingPodAntiAffinity|SchedulingRequiredPodAntiAffinityWithNSSelector|SchedulingNodeAffinity
perf-fill: etcd perf-build ## upstream's required anti-affinity workloads, their ceiling and NodeFill, both profiles, PERF_COUNT rounds; benchstat in PERF_FILL_RESULTS
	rm -rf $(PERF_FILL_RESULTS)/round-* $(PERF_FILL_RESULTS)/perf.txt
	mkdir -p $(PERF_FILL_RESULTS)
	@for i in $$(seq $(PERF_COUNT)); do \
		if [ $$((i % 2)) -eq 1 ]; then order=default,affinityq; else order=affinityq,default; fi; \
		$(MAKE) --no-print-directory perf-runs PERF_SUITE=affinity PERF_COUNT=1 PERF_ORDER=$$order \
			PERF_CASES='$(PERF_FILL_UPSTREAM)' PERF_WORKLOADS='5000Nodes_2000Pods|5000Nodes_10000Pods' \
			PERF_RESULTS=$(PERF_FILL_RESULTS)/round-$$i/affinity || exit 1; \
		$(MAKE) --no-print-directory perf-runs PERF_SUITE=affinityq PERF_COUNT=1 PERF_ORDER=$$order PERF_CASES=NodeFill \
			PERF_WORKLOADS='5000Nodes_1000Init_2000Pods|6000Nodes_4000Init_2000Pods' \
			PERF_RESULTS=$(PERF_FILL_RESULTS)/round-$$i/fill || exit 1; \
		cat $(PERF_FILL_RESULTS)/round-$$i/affinity/perf.txt $(PERF_FILL_RESULTS)/round-$$i/fill/perf.txt >> $(PERF_FILL_RESULTS)/perf.txt; \
	done
	$(GO) run $(BENCHSTAT) -col /profile -filter '$(PERF_UNITS)' $(PERF_FILL_RESULTS)/perf.txt | tee $(PERF_FILL_RESULTS)/benchstat.txt

perf-smoke: etcd ## scheduler_perf's smallest workloads under both profiles, once: ours (10 pods), and upstream's affinity and spread cases (5 nodes); plus the suite's unit tests (CI)
	mkdir -p $(BIN)/perf-smoke
	cd kube/perf && $(PERF_ENV) ARTIFACTS=$(BIN)/perf-smoke $(GO) test -count=1 -run='^Test' \
		-bench='^BenchmarkPerfScheduling$$' -benchtime=1x -timeout=30m \
		-perf-scheduling-label-filter=integration-test -data-items-dir=$(BIN)/perf-smoke .
	@for suite in affinity topology_spreading; do \
		echo "perf-smoke: upstream $$suite"; \
		(cd kube/perf && PATH="$(BIN):$$PATH" TMPDIR=$(PERF_TMPDIR) AFFINITYQ_PERF_CONFIG=$(K8S_PERF_DIR)/$$suite/performance-config.yaml \
			ARTIFACTS=$(BIN)/perf-smoke $(GO) test -count=1 -run='^$$' -benchtime=1x -timeout=30m \
			-bench='^BenchmarkPerfScheduling$$/^profile=(default|affinityq)$$/^($(PERF_CASES_affinity)|$(PERF_CASES_topology_spreading))$$/' \
			-perf-scheduling-label-filter=integration-test -data-items-dir=$(BIN)/perf-smoke .) || exit 1; \
	done
