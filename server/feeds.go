package server

import (
	"fmt"
	"strings"
	"time"
)

// FeedStatus is what /readyz says of one feed: something that brings
// artifacts into a directory the engine serves, such as a registry
// mirror (indexer serve --artifacts oci://…).
type FeedStatus struct {
	// Source names the feed (a registry reference); never credentials.
	Source string
	// Delivered says a first dist arrived: until then the server is not
	// ready.
	Delivered bool
	// Current is what is being served from it (a manifest digest), and
	// Since when.
	Current string
	Since   time.Time
	// Error is why the last attempt failed ("" when it did not); Failing
	// since when, and NextTry when it is tried again.
	Error   string
	Failing time.Time
	NextTry time.Time
	// Refused counts the versions the last delivery left out (their
	// content did not match); it names none, so anyone may read it.
	Refused int
}

// String renders the status as one /readyz line.
func (f FeedStatus) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "feed %s: ", f.Source)
	if f.Delivered {
		fmt.Fprintf(&b, "serving %s since %s", f.Current, f.Since.UTC().Format(time.RFC3339))
	} else {
		b.WriteString("nothing delivered yet")
	}
	if f.Refused > 0 {
		fmt.Fprintf(&b, "; %d versions refused", f.Refused)
	}
	if f.Error != "" {
		fmt.Fprintf(&b, "; failing since %s, next try %s: %s", f.Failing.UTC().Format(time.RFC3339), f.NextTry.UTC().Format(time.RFC3339), f.Error)
	}
	return b.String()
}
