package loadgen

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// scanAnswer reads what a load generator needs of a JSON-RPC response
// without decoding it: its id, whether it is an error, and whether its
// result says isError. The rest, a tool's whole answer, is walked over,
// its structure checked (brackets, commas, colons, numbers and literals)
// but its strings skipped, not read. ok is false for a message that is
// not JSON in that structure, or that it cannot read (keys with escapes,
// say), which callers then decode whole.
func scanAnswer(msg []byte) (id int64, rpcErr, toolErr, ok bool) {
	sc := scanner{data: msg}
	// Keys are matched as encoding/json matches them, in any case.
	err := sc.object(func(key string) error {
		switch {
		case strings.EqualFold(key, "id"):
			num, err := sc.number()
			if err == nil {
				id, err = strconv.ParseInt(string(num), 10, 64)
			}
			return err
		case strings.EqualFold(key, "error"):
			rpcErr = true
			return sc.skip(1)
		case strings.EqualFold(key, "result"):
			if sc.peek() != '{' {
				return sc.skip(1)
			}
			return sc.object(func(key string) error {
				if !strings.EqualFold(key, "isError") {
					return sc.skip(2)
				}
				switch {
				case sc.word("true") == nil:
					toolErr = true
				case sc.word("false") != nil:
					return errScan
				}
				return nil
			})
		}
		return sc.skip(1)
	})
	return id, rpcErr, toolErr, err == nil && sc.rest() == 0
}

// scanner walks JSON text without decoding it.
type scanner struct {
	data []byte
	i    int
}

var errScan = errors.New("cannot scan")

func (s *scanner) space() {
	for s.i < len(s.data) && (s.data[s.i] == ' ' || s.data[s.i] == '\t' || s.data[s.i] == '\n' || s.data[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) peek() byte {
	s.space()
	if s.i >= len(s.data) {
		return 0
	}
	return s.data[s.i]
}

func (s *scanner) rest() int {
	s.space()
	return len(s.data) - s.i
}

// object walks an object, calling member with each key (without escapes)
// with the scanner at its value, which member must consume.
func (s *scanner) object(member func(key string) error) error {
	if s.peek() != '{' {
		return errScan
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		if s.peek() != '"' {
			return errScan
		}
		start := s.i + 1
		if err := s.str(); err != nil {
			return err
		}
		key := s.data[start : s.i-1]
		if bytes.IndexByte(key, '\\') >= 0 || s.peek() != ':' {
			return errScan
		}
		s.i++
		s.space()
		if err := member(string(key)); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return errScan
		}
	}
}

// str moves past the string at the scanner.
func (s *scanner) str() error {
	for j := s.i + 1; ; {
		k := bytes.IndexByte(s.data[j:], '"')
		if k < 0 {
			return errScan
		}
		j += k
		bs := 0
		for bs < j && s.data[j-1-bs] == '\\' {
			bs++
		}
		j++
		if bs%2 == 0 {
			s.i = j
			return nil
		}
	}
}

// maxScanDepth bounds the nesting scanAnswer walks into.
const maxScanDepth = 1000

// number moves past the JSON number at the scanner and returns it.
func (s *scanner) number() ([]byte, error) {
	s.space()
	start := s.i
	digits := func() int {
		n := 0
		for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.data) && s.data[s.i] == '-' {
		s.i++
	}
	switch n := digits(); {
	case n == 0, n > 1 && s.data[s.i-n] == '0':
		return nil, errScan
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return nil, errScan
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return nil, errScan
		}
	}
	return s.data[start:s.i], nil
}

// word moves past the literal w (true, false or null) if it is at the
// scanner.
func (s *scanner) word(w string) error {
	s.space()
	if !bytes.HasPrefix(s.data[s.i:], []byte(w)) {
		return errScan
	}
	s.i += len(w)
	return nil
}

// skip moves past the value at the scanner, depth levels down from the
// message.
func (s *scanner) skip(depth int) error {
	if depth > maxScanDepth {
		return errScan
	}
	switch c := s.peek(); {
	case c == '"':
		return s.str()
	case c == '{':
		return s.object(func(string) error { return s.skip(depth + 1) })
	case c == '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return nil
			default:
				return errScan
			}
		}
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.number()
		return err
	}
	return errScan
}
