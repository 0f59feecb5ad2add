package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Whole numbers: the one rule by which the whole numbers clients send as
// parameters are read wherever they arrive, MCP tool arguments (package
// server) and the REST API's query parameters (package context7api), so
// that a number means the same on every tool and endpoint.
//
// The rule: a parameter's value is a decimal number whose value is whole,
// written as JSON writes numbers: 200, -1, 200.0, 2e2 and 2.5E3 are 200,
// -1, 200, 200 and 2500. Over MCP it may also be a JSON string holding such
// a number ("200"), as some agents send every value; space around the
// number is ignored. An empty value (a JSON null, "", or tokens= in a
// query string) is the parameter left out. A value beyond what an int32
// holds (1e12, 1e308, a thousand digits) is read as the nearest int32, so
// that the parameter's own bounds clamp it as they clamp any value out of
// range. Anything else (1.5, 1e-3, 0x10, NaN, Infinity, "two", true, an
// array) is refused with an error naming the parameter.

// ErrNotWhole is what every refusal of a number wraps: the value is not a
// whole number.
var ErrNotWhole = errors.New("not a whole number")

// NumberError is a refused value: Param's value, quoted short in Got, is
// not a whole number.
type NumberError struct {
	Param string // the parameter's name
	Got   string // what was sent, as a client would write it, clipped
}

func (e *NumberError) Error() string {
	return fmt.Sprintf("%s must be a whole number, got %s", e.Param, e.Got)
}

// Unwrap makes errors.Is(err, ErrNotWhole) hold.
func (e *NumberError) Unwrap() error { return ErrNotWhole }

// maxQuoted bounds how much of a refused value an error quotes back.
const maxQuoted = 40

// ParseWhole reads s, the text of parameter param's value (a query parameter,
// or the content of a JSON string), by the rule above. It returns 0
// for an empty s, which callers take as the parameter left out.
func ParseWhole(param, s string) (int, error) {
	n, ok := parseWhole(strings.TrimSpace(s))
	if !ok {
		return 0, &NumberError{Param: param, Got: strconv.Quote(Clip(s, maxQuoted))}
	}
	return n, nil
}

// ParseWholeJSON reads data, a JSON value given for parameter param, by the
// rule above: a number, a string holding one, or null (0, the
// parameter left out). data is valid JSON, as a decoder hands it over.
func ParseWholeJSON(param string, data []byte) (int, error) {
	text := strings.TrimSpace(string(data))
	switch {
	case text == "null":
		return 0, nil
	case strings.HasPrefix(text, `"`):
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return 0, &NumberError{Param: param, Got: "a string that is not JSON"}
		}
		n, ok := parseWhole(strings.TrimSpace(s))
		if !ok {
			return 0, &NumberError{Param: param, Got: strconv.Quote(Clip(s, maxQuoted))}
		}
		return n, nil
	case text != "" && (text[0] == '-' || text[0] >= '0' && text[0] <= '9'):
		n, ok := parseWhole(text)
		if !ok {
			return 0, &NumberError{Param: param, Got: Clip(text, maxQuoted)}
		}
		return n, nil
	case strings.HasPrefix(text, "["):
		return 0, &NumberError{Param: param, Got: "an array"}
	case strings.HasPrefix(text, "{"):
		return 0, &NumberError{Param: param, Got: "an object"}
	}
	return 0, &NumberError{Param: param, Got: Clip(text, maxQuoted)} // true, false
}

// parse reads s, already trimmed: "" is 0; otherwise s must match JSON's
// number grammar, leading zeros aside, and have a whole value, which is
// clamped to the int32 range. It works on the digits, so that no float
// rounding turns 200.0000000000000001 into 200 and no length of input
// overflows.
func parseWhole(s string) (int, bool) {
	if s == "" {
		return 0, true
	}
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	intPart, rest := digits(s)
	if intPart == "" {
		return 0, false
	}
	var frac string
	if strings.HasPrefix(rest, ".") {
		if frac, rest = digits(rest[1:]); frac == "" {
			return 0, false
		}
	}
	exp := 0
	if rest != "" {
		if rest[0] != 'e' && rest[0] != 'E' {
			return 0, false
		}
		rest = rest[1:]
		expNeg := false
		if rest != "" && (rest[0] == '+' || rest[0] == '-') {
			expNeg, rest = rest[0] == '-', rest[1:]
		}
		expDigits, tail := digits(rest)
		if expDigits == "" || tail != "" {
			return 0, false
		}
		// Past a few million, an exponent only says "huge" or "tiny".
		const maxExp = 1 << 24
		e, err := strconv.Atoi(expDigits)
		if err != nil || e > maxExp {
			e = maxExp
		}
		if expNeg {
			e = -e
		}
		exp = e
	}
	// The value is 0.D × 10^point, D the significant digits.
	mant := strings.TrimLeft(intPart+frac, "0")
	if mant == "" {
		return 0, true // 0, -0, 0.0, 0e9
	}
	point := len(intPart) - (len(intPart+frac) - len(mant)) + exp
	mant = strings.TrimRight(mant, "0")
	if point < len(mant) {
		return 0, false // digits after the point: not whole
	}
	var n int64
	if point > 10 {
		n = math.MaxInt32 + 1 // beyond any int32 either way
	} else {
		n, _ = strconv.ParseInt(mant+strings.Repeat("0", point-len(mant)), 10, 64)
	}
	if neg {
		n = -n
	}
	return int(min(max(n, math.MinInt32), math.MaxInt32)), true
}

// digits splits s after its leading ASCII digits.
func digits(s string) (string, string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}
