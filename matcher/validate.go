package matcher

import "strings"

// A fast, allocation-free check of label keys and values for the common case.
// It accepts exactly what apimachinery's content.IsLabelKey and
// content.IsLabelValue accept (TestValidationAgreesWithApimachinery and
// FuzzSelector hold it to that); newRequirement still asks apimachinery when
// it says no, so that errors carry apimachinery's messages.

const (
	maxNameLen      = 63  // a label value, or the name part of a key
	maxSubdomainLen = 253 // the prefix part of a key
)

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// validName reports whether s matches ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
// and has at most 63 characters.
func validName(s string) bool {
	if len(s) == 0 || len(s) > maxNameLen || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// validLabelValue: empty, or a valid name.
func validLabelValue(s string) bool { return s == "" || validName(s) }

// validSubdomain reports whether s is a DNS-1123 subdomain: at most 253
// characters, dot-separated labels of [a-z0-9] and '-', each starting and
// ending with [a-z0-9].
func validSubdomain(s string) bool {
	if len(s) == 0 || len(s) > maxSubdomainLen {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if len(part) == 0 || !isLowerAlnum(part[0]) || !isLowerAlnum(part[len(part)-1]) {
			return false
		}
		for i := 1; i < len(part)-1; i++ {
			if c := part[i]; !isLowerAlnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// validLabelKey: a name, optionally prefixed by a subdomain and '/'.
func validLabelKey(k string) bool {
	prefix, name, found := strings.Cut(k, "/")
	if !found {
		return validName(k)
	}
	return !strings.Contains(name, "/") && validSubdomain(prefix) && validName(name)
}
