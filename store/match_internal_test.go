package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The literal fast paths must agree with the regular expressions they replace.
func TestRegexFastPathsAgreeWithRegexp(t *testing.T) {
	inputs := []string{"", "abc", "xabc", "abcx", "a.b*c", "A.B*C", "line1\nline2", `back\slash`, "ab\\Ec", "€uro"}
	for _, pat := range []string{`^\Qabc\E`, `\Qabc\E$`, `\Qabc\E`, `^\Qa.b*\E`, `\Q*c\E$`, `\Q\E`, `^\Q€\E`, `\Qback\slash\E`, `^\Qab\E\\E\Qc\E`} {
		fast, err := regexMatcher(pat, "")
		require.NoError(t, err)
		re, err := compileRegex(pat, "")
		require.NoError(t, err, pat)
		for _, in := range inputs {
			assert.Equal(t, re.MatchString(in), fast(in), "pattern %q on %q", pat, in)
		}
	}
}

func TestRemoveWhiteSpace(t *testing.T) {
	assert.Equal(t, "abc", removeWhiteSpace("a b\tc"))
	assert.Equal(t, `a\ b`, removeWhiteSpace(`a\ b # comment`))
	assert.Equal(t, "ab", removeWhiteSpace("# first line\na\n  b"))
}

func TestCompareValues(t *testing.T) {
	c, ok := compare(float64(1), "1")
	assert.False(t, ok)
	assert.Zero(t, c)
	c, ok = compare("a", "B")
	assert.True(t, ok)
	assert.Equal(t, 1, c, "byte order, as the C.UTF-8 collation")
}
