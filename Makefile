# affinityq — thin wrapper over the go command. `make help` lists the targets.

GO            ?= go
FUZZTIME      ?= 10s
LONGFUZZTIME  ?= 5m
BENCHTIME     ?= 1s
BENCHCOUNT    ?= 6
BENCH         ?= .
STATICCHECK   ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: help test vet unit fuzz-short fuzz bench bench-smoke lint tidy-check run kube-test

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

test: vet unit bench-smoke fuzz-short ## the test command: vet, tests with -race, every benchmark once, every fuzz target for FUZZTIME

run: ## the main job: affinityq bench on its default workloads (100,000 pending pods)
	$(GO) run ./cmd/affinityq bench

vet: ## go vet
	$(GO) vet ./...

unit: ## go test -race ./...
	$(GO) test -race -count=1 ./...

bench-smoke: ## run every benchmark once at its smallest size so none can rot
	$(GO) test -run='^$$' -bench=. -benchtime=1x -short ./... > /dev/null

fuzz-short: ## every fuzz target for FUZZTIME (default 10s)
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz-all

fuzz: ## long fuzzing: every fuzz target for LONGFUZZTIME (default 5m)
	FUZZTIME=$(LONGFUZZTIME) GO=$(GO) scripts/fuzz-all

BENCHSTAT     ?= golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
RESULTS       ?= bench/results

bench: ## regenerate the benchmark tables: raw results in bench/results/, benchstat tables printed (BENCH, BENCHTIME, BENCHCOUNT)
	@mkdir -p $(RESULTS)
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) ./matcher > $(RESULTS)/matcher.txt
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -timeout=60m ./index > $(RESULTS)/index.txt
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -timeout=60m ./queue > $(RESULTS)/queue.txt
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) -cpu=1,2 -timeout=60m ./bench > $(RESULTS)/workloads.txt
	@for f in matcher index queue workloads; do echo "== $$f"; $(GO) run $(BENCHSTAT) $(RESULTS)/$$f.txt; done
	$(GO) run ./cmd/affinityq bench -progress=false | tee $(RESULTS)/affinityq-bench.txt
	$(GO) run ./cmd/affinityq bench -progress=false -workloads unique-partner -policies relation -events 200 -naive-events 20 \
		-svg $(RESULTS)/latency.svg -svg-sizes 1000,3000,10000,30000,100000 > /dev/null

lint: vet ## go vet and staticcheck (pinned, through the module proxy)
	$(GO) run $(STATICCHECK) ./...

tidy-check: ## go mod tidy (both modules) and gofmt leave nothing to change
	$(GO) mod tidy -diff
	cd kube && $(GO) mod tidy -diff
	@out=$$(git ls-files -z '*.go' | xargs -0 -r gofmt -l); test -z "$$out" || { echo "gofmt would change: $$out"; exit 1; }

KUBE_TESTFLAGS ?= -race -short

kube-test: ## the kube/ module (k8s.io/kubernetes v1.37.2): vet, tests (KUBE_TESTFLAGS: -race -short), the kube-scheduler build
	cd kube && $(GO) vet ./...
	cd kube && $(GO) test $(KUBE_TESTFLAGS) -count=1 ./...
	cd kube && $(GO) build -o /dev/null ./cmd/kube-scheduler
