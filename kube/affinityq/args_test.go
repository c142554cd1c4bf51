package affinityq

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
)

func TestArgs(t *testing.T) {
	unknown := func(contentType, raw string) *runtime.Unknown {
		return &runtime.Unknown{ContentType: contentType, Raw: []byte(raw)}
	}
	for _, tc := range []struct {
		name    string
		in      runtime.Object
		want    *config.InterPodAffinityArgs
		wantErr string
	}{
		{name: "none: defaults", in: nil, want: &config.InterPodAffinityArgs{HardPodAffinityWeight: 1}},
		{name: "json", in: unknown(runtime.ContentTypeJSON, `{"hardPodAffinityWeight": 5, "ignorePreferredTermsOfExistingPods": true}`), want: &config.InterPodAffinityArgs{HardPodAffinityWeight: 5, IgnorePreferredTermsOfExistingPods: true}},
		{name: "yaml, defaulted", in: unknown(runtime.ContentTypeYAML, "ignorePreferredTermsOfExistingPods: true\n"), want: &config.InterPodAffinityArgs{HardPodAffinityWeight: 1, IgnorePreferredTermsOfExistingPods: true}},
		{name: "no raw", in: &runtime.Unknown{}, want: &config.InterPodAffinityArgs{HardPodAffinityWeight: 1}},
		{name: "typed", in: &config.InterPodAffinityArgs{HardPodAffinityWeight: 7}, want: &config.InterPodAffinityArgs{HardPodAffinityWeight: 7}},
		{name: "bad json", in: unknown(runtime.ContentTypeJSON, `{"hardPodAffinityWeight": "x"}`), wantErr: "affinityq: AffinityqInterPodAffinity: decoding args"},
		{name: "bad content type", in: unknown("text/plain", "x"), wantErr: "affinityq: AffinityqInterPodAffinity: decoding args"},
		{name: "wrong type", in: &config.PodTopologySpreadArgs{}, wantErr: "affinityq: AffinityqInterPodAffinity: args of type *config.PodTopologySpreadArgs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := interPodAffinityArgs(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("interPodAffinityArgs error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("interPodAffinityArgs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodTopologySpreadArgs(t *testing.T) {
	got, err := podTopologySpreadArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.DefaultingType != config.SystemDefaulting || hardDefaultConstraints(got) {
		t.Errorf("default args = %+v: want system defaulting, no hard default constraints", got)
	}
	hard, err := podTopologySpreadArgs(&runtime.Unknown{Raw: []byte(`{"defaultingType": "List", "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !hardDefaultConstraints(hard) {
		t.Errorf("hardDefaultConstraints(%+v) = false, want true", hard)
	}
	soft := &config.PodTopologySpreadArgs{DefaultingType: config.ListDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{{WhenUnsatisfiable: v1.ScheduleAnyway}}}
	if hardDefaultConstraints(soft) {
		t.Errorf("hardDefaultConstraints(%+v) = true, want false", soft)
	}
	if _, err := podTopologySpreadArgs(&config.InterPodAffinityArgs{}); err == nil || !strings.HasPrefix(err.Error(), "affinityq: ") {
		t.Errorf("podTopologySpreadArgs(wrong type) error = %v, want an affinityq error", err)
	}
}
