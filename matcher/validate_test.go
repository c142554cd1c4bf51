package matcher

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// validationCases feed TestValidationAgreesWithApimachinery and the seeds of
// FuzzValidation.
var validationCases = []string{
	"", "a", "A", "0", "app", "my.name", "my_name", "my-name", "MyName", "-a", "a-", "_a", "a_", ".a", "a.",
	"a b", "a/b", "a/b/c", "/a", "a/", "example.com/app", "Example.com/app", "example..com/app",
	"-example.com/app", "example-.com/app", "ex_ample.com/app", "1.2.3/app", "k8s.io/x_y.z",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253) + "/a", strings.Repeat("a", 254) + "/a",
	"café", "a\n", "\x00",
}

func TestValidationAgreesWithApimachinery(t *testing.T) {
	for _, s := range validationCases {
		checkValidation(t, s)
	}
}

func checkValidation(t *testing.T, s string) {
	t.Helper()
	if got, want := validLabelKey(s), len(content.IsLabelKey(s)) == 0; got != want {
		t.Errorf("validLabelKey(%q) = %v, apimachinery %v", s, got, want)
	}
	if got, want := validLabelValue(s), len(content.IsLabelValue(s)) == 0; got != want {
		t.Errorf("validLabelValue(%q) = %v, apimachinery %v", s, got, want)
	}
}

func FuzzValidation(f *testing.F) {
	for _, s := range validationCases {
		f.Add(s)
	}
	f.Fuzz(checkValidation)
}
