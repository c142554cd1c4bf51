# affinityq — thin wrapper over the go command. `make help` lists the targets.

GO            ?= go
FUZZTIME      ?= 10s
LONGFUZZTIME  ?= 5m
BENCHTIME     ?= 1s
BENCHCOUNT    ?= 6
BENCH         ?= .
STATICCHECK   ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: help test vet unit fuzz-short fuzz bench bench-smoke lint tidy-check

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

test: vet unit bench-smoke fuzz-short ## the test command: vet, tests with -race, every benchmark once, every fuzz target for FUZZTIME

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

bench: ## benchmarks, benchstat-friendly (BENCH, BENCHTIME, BENCHCOUNT)
	$(GO) test -run='^$$' -bench='$(BENCH)' -benchtime=$(BENCHTIME) -count=$(BENCHCOUNT) ./...

lint: vet ## go vet and staticcheck (pinned, through the module proxy)
	$(GO) run $(STATICCHECK) ./...

tidy-check: ## go mod tidy and gofmt leave nothing to change
	$(GO) mod tidy -diff
	@out=$$(git ls-files -z '*.go' | xargs -0 -r gofmt -l); test -z "$$out" || { echo "gofmt would change: $$out"; exit 1; }
