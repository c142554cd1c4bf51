package index

import "github.com/affinityq/affinityq/internal/podtest"

// The builders of the package's internal tests (internal/podtest).
var (
	sel          = podtest.Sel
	exists       = podtest.Exists
	in           = podtest.In
	term         = podtest.Term
	withLabels   = podtest.WithLabels
	onNode       = podtest.OnNode
	inNamespace  = podtest.InNamespace
	withAffinity = podtest.WithAffinity
	withAnti     = podtest.WithAnti
	withSpread   = podtest.WithSpread
	pod          = podtest.Pod
	node         = podtest.Node
)

type podOpt = podtest.Opt
