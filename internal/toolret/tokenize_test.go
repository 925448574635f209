package toolret

import (
	"slices"
	"testing"

	"github.com/aisdkgo/ai"
)

// TestTokenizeMatchesReference pins ai.Tokenize on inputs that exercise the
// camelCase split, full Unicode lower-casing (final sigma, dotted I, special
// mappings) and the letter and number classes. The expected words are what
// the TypeScript reference's tokenizer returns for the same text.
func TestTokenizeMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"getWeatherForecast", []string{"get", "weather", "forecast"}},
		{"get_weather_forecast", []string{"get", "weather", "forecast"}},
		{"HTTPServer", []string{"httpserver"}},
		{"parseHTTPResponse", []string{"parse", "httpresponse"}},
		{"getV2API", []string{"get", "v2", "api"}},
		{"v2Api", []string{"v2", "api"}},
		{"a1B2C3", []string{"a1", "b2", "c3"}},
		{"XMLHttpRequest", []string{"xmlhttp", "request"}},
		{"iPhone15Pro", []string{"i", "phone15", "pro"}},
		{"ΟΔΟΣ ΟΔΟΣ.", []string{"οδος", "οδος"}},
		{"ΑΣ'Β", []string{"ασ", "β"}},
		{"İstanbul", []string{"i", "stanbul"}},
		{"KELVIN K", []string{"kelvin", "k"}},
		{"Straße STRASSE ẞ", []string{"straße", "strasse", "ß"}},
		{"ǅemal", []string{"ǆemal"}},
		{"café naïve", []string{"café", "naïve"}},
		{"e\u0301cole", []string{"e", "cole"}},
		{"x²+y³ ½", []string{"x²", "y³", "½"}},
		{"Ⅻ roman", []string{"ⅻ", "roman"}},
		{"①②", []string{"①②"}},
		{"٣ arabic ٣٤", []string{"٣", "arabic", "٣٤"}},
		{"日本語のツール", []string{"日本語のツール"}},
		{"한국어", []string{"한국어"}},
		{"emoji😀tool", []string{"emoji", "tool"}},
		{"ｆｕｌｌｗｉｄｔｈ ＡＢＣ", []string{"ｆｕｌｌｗｉｄｔｈ", "ａｂｃ"}},
		{"ﬁle ﬀ", []string{"ﬁle", "ﬀ"}},
		{"𐐀𐐨 deseret", []string{"𐐨𐐨", "deseret"}},
		{"ŉ", []string{"ŉ"}},
		{"ΐ", []string{"ΐ"}},
		{"tab\tnew\nline", []string{"tab", "new", "line"}},
		{"", []string{}},
		{"---", []string{}},
		{"don't stop", []string{"don", "t", "stop"}},
		{"e-mail", []string{"e", "mail"}},
		{"ÀÉÎ Œuvre", []string{"àéî", "œuvre"}},
		{"mixedÜmlaut", []string{"mixedümlaut"}},
		{"aÜb", []string{"aüb"}},
		{"ıI", []string{"ıi"}},
		{"Σ", []string{"σ"}},
		{"ΑΣ", []string{"ας"}},
		{"Α.Σ", []string{"α", "ς"}},
		{"ΑΣ\u0301", []string{"ας"}},
		{"ΑΣ\u00adΒ", []string{"ασ", "β"}},
	} {
		got := ai.Tokenize(tc.in)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
