// Package routing splits a catalog across replica groups and writes what
// runs them: for each group the codex7.yaml of its libraries (so that each
// group builds, pushes and serves only its own dist), and the
// configuration of the proxy in front of all of them, HAProxy (2.6, as
// Debian packages it), with a map file from library to group. No request
// is routed by code of ours: the proxy reads the library a request is
// about from where each route carries it (the REST path, the REST query,
// the MCP tool call's JSON body) and looks it up in the map.
//
// Libraries are assigned to groups by rendezvous hashing of their id (or
// of their organization, to keep an organization's libraries together):
// the same libraries and group names always give the same split, and
// adding a group moves only the libraries the new group wins, about 1/n of
// them, so only those need building and pulling anew.
package routing

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ErrNoGroups means a split was asked for without any group.
var ErrNoGroups = errors.New("no replica groups")

// Library is what routing knows of a library: its id and the names an
// agent may look it up by.
type Library struct {
	// ID is /org/project.
	ID string
	// Title and Aliases are names resolve-library-id and the REST search
	// are asked with (optional).
	Title   string
	Aliases []string
}

// By says what the hash that picks a library's group is of.
type By string

// What a split hashes.
const (
	// ByLibrary spreads libraries evenly, whatever their organization.
	ByLibrary By = "library"
	// ByOrg keeps every library of an organization in one group.
	ByOrg By = "org"
)

// Group is one replica group: its name, the addresses of its replicas
// (host:port of each `indexer serve --http`) and its libraries' ids, sorted.
type Group struct {
	Name      string
	Servers   []string
	Libraries []string
}

// Assign returns, for every library, the name of the group that holds it,
// by rendezvous hashing: each library goes to the group whose hash of
// (group, key) is highest, key being the library id or its organization
// (by), lower-cased. It is deterministic and does not depend on the order
// of libs or groups. Group names are letters, digits, '-' and '_', each
// given once, and none is AnyBackend, which the proxy's configuration
// already names.
func Assign(libs []Library, groups []string, by By) (map[string]string, error) {
	if len(groups) == 0 {
		return nil, ErrNoGroups
	}
	seen := map[string]bool{}
	for _, g := range groups {
		if !validGroupName(g) {
			return nil, fmt.Errorf("group name %q: use letters, digits, '-' and '_' (it names a proxy backend and a file)", g)
		}
		if g == AnyBackend {
			// HAProxy refuses a configuration naming two backends alike.
			return nil, fmt.Errorf("group name %q names the proxy's backend of every replica: choose another", g)
		}
		if seen[g] {
			return nil, fmt.Errorf("group %q named twice", g)
		}
		seen[g] = true
	}
	if by == "" {
		by = ByLibrary
	}
	if by != ByLibrary && by != ByOrg {
		return nil, fmt.Errorf("split by %q: want %q or %q", by, ByLibrary, ByOrg)
	}
	out := make(map[string]string, len(libs))
	for _, l := range libs {
		key := IDKey(l.ID)
		if by == ByOrg {
			key, _, _ = strings.Cut(key, "/")
		}
		best, bestScore := "", uint64(0)
		for _, g := range groups {
			sum := sha256.Sum256([]byte(g + "\x00" + key))
			if s := binary.BigEndian.Uint64(sum[:8]); best == "" || s > bestScore || (s == bestScore && g < best) {
				best, bestScore = g, s
			}
		}
		out[l.ID] = best
	}
	return out, nil
}

func validGroupName(g string) bool {
	if g == "" || len(g) > 64 {
		return false
	}
	for _, r := range g {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// IDKey is the map key of a library id as the proxy computes it from any
// form an agent sends (see haproxyKey): lower-cased, without the leading
// slash: "/Vercel/Next.js" → "vercel/next.js".
func IDKey(id string) string { return strings.ToLower(strings.TrimPrefix(id, "/")) }

// gitSuffix ends the project of a clone URL, which request.ParseKey drops
// from a GitHub URL ("https://github.com/org/project.git" is
// /org/project) but keeps in a bare path ("org/project.git" is another
// id). The proxy's key keeps it either way, so the map holds it too.
const gitSuffix = ".git"

// Entry is one line of the proxy's map: a key (see IDKey; names
// lower-cased) and the group it routes to.
type Entry struct {
	Key, Group string
}

// Entries returns the map from every library's id key, and every name of
// it that is unambiguous, to its group, sorted by key. Each id key is also
// there with ".git" after it, for GitHub clone URLs (see gitSuffix),
// unless that is another library's id key. A name is left out when
// libraries of two groups share it (the request then goes to any group:
// see WriteHAProxy), when it is also another library's id key, or when it
// holds what a map key cannot (whitespace, '/', '@'). A name is keyed as
// the proxy lower-cases it, ASCII letters only, and also wholly
// lower-cased when that differs ("Ökonomie" and "ökonomie").
func Entries(libs []Library, assign map[string]string) []Entry {
	ids := map[string]string{}
	clones := map[string]string{} // id key + ".git" → group
	names := map[string]string{}  // name → group, "" when ambiguous
	for _, l := range libs {
		g := assign[l.ID]
		ids[IDKey(l.ID)] = g
		clones[IDKey(l.ID)+gitSuffix] = g
		project := l.ID[strings.LastIndex(l.ID, "/")+1:]
		for _, n := range append([]string{project, l.Title}, l.Aliases...) {
			n = strings.TrimSpace(n)
			if n == "" || strings.ContainsAny(n, " \t\r\n/@#\\\"'") {
				continue
			}
			// The proxy's lower only lower-cases ASCII: "Ökonomie" as
			// sent stays "Ökonomie", which Go's ToLower makes "ökonomie".
			// Both spellings are keys.
			for _, k := range slices.Compact([]string{asciiLower(n), strings.ToLower(n)}) {
				if prev, ok := names[k]; ok && prev != g {
					names[k] = ""
					continue
				}
				names[k] = g
			}
		}
	}
	out := make([]Entry, 0, len(ids)+len(clones)+len(names))
	for k, g := range ids {
		out = append(out, Entry{k, g})
	}
	for k, g := range clones {
		if _, isID := ids[k]; !isID {
			out = append(out, Entry{k, g})
		}
	}
	for n, g := range names {
		if _, isID := ids[n]; !isID && g != "" {
			out = append(out, Entry{n, g})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// asciiLower lower-cases the ASCII letters of s, as HAProxy's lower
// converter does, and leaves every other byte as it is.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// Groups gathers assign into groups (in the order of names), each with its
// servers from servers (by group name) and its library ids sorted.
func Groups(names []string, assign map[string]string, servers map[string][]string) []Group {
	byName := map[string]*Group{}
	out := make([]Group, len(names))
	for i, n := range names {
		out[i] = Group{Name: n, Servers: servers[n]}
		byName[n] = &out[i]
	}
	for id, g := range assign {
		if grp := byName[g]; grp != nil {
			grp.Libraries = append(grp.Libraries, id)
		}
	}
	for i := range out {
		sort.Strings(out[i].Libraries)
	}
	return out
}
