package index

// Test hooks for the external test package: the benchmark pool.
var (
	BenchPool  = benchPool
	BenchEvent = benchEvent
	BenchSizes = benchSizes
)
