package mentions

import (
	"slices"
	"strings"
	"testing"
)

// testLibs is the catalog the table test detects against: names and
// aliases as a codex7.yaml would give them.
var testLibs = []Library{
	{ID: "/vercel/next.js", Names: []string{"Next.js", "nextjs", "next"}},
	{ID: "/tanstack/query", Names: []string{"TanStack Query", "query", "react-query", "@tanstack/react-query"}},
	{ID: "/tiangolo/fastapi", Names: []string{"FastAPI", "fastapi"}},
	{ID: "/expressjs/express", Names: []string{"Express", "express"}},
	{ID: "/vitejs/vite", Names: []string{"Vite", "vite"}},
	{ID: "/gin-gonic/gin", Names: []string{"Gin", "gin", "go-gin", "github.com/gin-gonic/gin"}},
	{ID: "/facebook/react", Names: []string{"React", "react"}},
	{ID: "/django/django", Names: []string{"Django"}},
	{ID: "/pallets/flask", Names: []string{"Flask"}},
	{ID: "/psf/requests", Names: []string{"Requests"}},
	{ID: "/scikit-learn/scikit-learn", Names: []string{"scikit-learn"}},
	{ID: "/serde-rs/serde", Names: []string{"Serde"}},
	{ID: "/spf13/cobra", Names: []string{"Cobra"}},
	{ID: "/pydantic/pydantic", Names: []string{"Pydantic"}},
	{ID: "/pallets/click", Names: []string{"Click"}},
	{ID: "/textualize/rich", Names: []string{"Rich"}},
	{ID: "/acme/widgets", Names: []string{"Acme Widgets", "widgets", "acme-widgets"}},
}

// detectCases map a prompt to the libraries it is about, in order: an id
// for a library of testLibs, the package name for one it lacks.
var detectCases = []struct {
	name   string
	prompt string
	want   []string
}{
	// Seed 003's examples.
	{"seed: direct mention", "How to use React hooks?", []string{"/facebook/react"}},
	{"seed: comparison", "FastAPI vs Django", []string{"/tiangolo/fastapi", "/django/django"}},
	{"seed: npm install", "npm install express", []string{"/expressjs/express"}},
	{"seed: pip install", "pip install fastapi", []string{"/tiangolo/fastapi"}},
	{"seed: from import", "from django.db import models", []string{"/django/django"}},
	{"seed: js import", "import { useState } from 'react'", []string{"/facebook/react"}},
	{"seed: useEffect example", "How do I use the useEffect hook in React?", []string{"/facebook/react"}},
	{"seed: REST comparison", "FastAPI vs Django for REST APIs", []string{"/tiangolo/fastapi", "/django/django"}},
	{"seed: express middleware", "How to configure Express middleware?", []string{"/expressjs/express"}},
	// Seed 003's false-positive filters: built-ins, short names, duplicates, at most 5.
	{"python built-ins", "import os, sys, json\nfrom os import path", nil},
	{"one letter", "a", nil},
	{"empty", "", nil},
	{"spellings once", "Use React, react or ReactJS", []string{"/facebook/react"}},
	{"at most five", "npm i react vite express next react-query lodash", []string{"/facebook/react", "/vitejs/vite", "/expressjs/express", "/vercel/next.js", "/tanstack/query"}},

	// The examples.
	{"npm i", "npm i react-query", []string{"/tanstack/query"}},
	{"pip extras quoted", `pip install "fastapi[all]"`, []string{"/tiangolo/fastapi"}},
	{"go get version", "go get github.com/x/y@v1", []string{"github.com/x/y"}},
	{"cargo add", "cargo add serde", []string{"/serde-rs/serde"}},
	{"python from import", "from fastapi import FastAPI", []string{"/tiangolo/fastapi"}},
	{"js named import", `import { useState } from "react"`, []string{"/facebook/react"}},
	{"require", "const express = require('express')", []string{"/expressjs/express"}},
	{"go import", `import "github.com/gin-gonic/gin"`, []string{"/gin-gonic/gin"}},
	{"english: import data", "go ahead and import data from the spreadsheet", nil},
	{"english: express", "I want to express my concern about the deadline", nil},
	{"english: next steps", "What are the next steps?", nil},
	{"english: react quickly", "We need to react quickly when the build fails", nil},
	{"english: all at once", "Next steps: react quickly and express our concerns", nil},
	{"english: title case", "How To Express My Concern Politely", nil},
	{"english: next minutes", "I will be done in the next 5 minutes", nil},
	{"english: widgets", "Add more widgets to the dashboard", nil},
	{"english: gin", "gin and tonic recipe", nil},
	{"english: go get coffee", "I need to go get coffee before the standup", nil},
	{"english: a click handler", "Add a click handler so the flask of coffee refills", nil},
	{"english: rich text", "Add rich text support to the editor", nil},
	{"node built-ins", "import fs from \"fs\"\nimport path from 'node:path'\nconst { spawn } = require('child_process')", nil},
	{"go standard library", "import (\n\t\"fmt\"\n\t\"net/http\"\n\n\t\"github.com/gin-gonic/gin\"\n)", []string{"/gin-gonic/gin"}},
	{"rust std", "use std::collections::HashMap;", nil},

	// Seed 003's known misses: what its patterns did not cover.
	{"yarn add dev flag", "yarn add -D vite", []string{"/vitejs/vite"}},
	{"pnpm scoped with range", "pnpm add @tanstack/react-query@^5", []string{"/tanstack/query"}},
	{"bun add with version", "bun add express@5 --exact", []string{"/expressjs/express"}},
	{"python -m pip, specifiers", "python -m pip install -U 'requests>=2.31' scikit-learn==1.4.0", []string{"/psf/requests", "/scikit-learn/scikit-learn"}},
	{"uv add", "uv add pydantic", []string{"/pydantic/pydantic"}},
	{"poetry add constraint", "poetry add flask@^3.0", []string{"/pallets/flask"}},
	{"alias spellings once", "Next.js, nextjs, NextJS and next.js are one library", []string{"/vercel/next.js"}},
	{"names of two words", "Using React Query with Next JS", []string{"/tanstack/query", "/vercel/next.js"}},
	{"title only", "TanStack Query vs SWR", []string{"/tanstack/query"}},
	{"require in a fence", "```js\nconst app = require(\"express\")()\n```", []string{"/expressjs/express"}},
	{"subpath imports", "import React from 'react'\nimport { createRoot } from 'react-dom/client'", []string{"/facebook/react", "react-dom"}},
	{"next/link", "import Link from 'next/link'", []string{"/vercel/next.js"}},
	{"relative and aliased imports", "import x from './utils'\nimport y from '@/lib/db'\nimport z from '~/app'\nimport w from '#internal'", nil},
	{"dynamic import", `const mod = await import("vite")`, []string{"/vitejs/vite"}},
	{"re-export", `export * from "@tanstack/react-query"`, []string{"/tanstack/query"}},
	{"unknown python imports", "import numpy as np, pandas as pd", []string{"numpy", "pandas"}},
	{"import name vs distribution", "import sklearn\n\npip install scikit-learn", []string{"/scikit-learn/scikit-learn"}},
	{"interpreter prompt", ">>> from flask import Flask", []string{"/pallets/flask"}},
	{"inline code import", "Why does `from pydantic import BaseModel` fail?", []string{"/pydantic/pydantic"}},
	{"import mid-sentence", "When I do from fastapi import FastAPI the server crashes", []string{"/tiangolo/fastapi"}},
	{"rust use", "use serde::Deserialize;", []string{"/serde-rs/serde"}},
	{"go block, alias, major version", "import (\n\tchi \"github.com/go-chi/chi/v5\"\n\t\"github.com/spf13/cobra\"\n)", []string{"github.com/go-chi/chi", "/spf13/cobra"}},
	{"go get subpackages", "go get -u github.com/spf13/cobra/...@latest", []string{"/spf13/cobra"}},
	{"go install tool", "go install golang.org/x/tools/gopls@latest", []string{"golang.org/x/tools"}},
	{"cargo features value", "cargo add serde --features derive", []string{"/serde-rs/serde"}},
	{"cargo chained", "cargo add tokio -F full && cargo add serde_json", []string{"tokio", "serde-json"}},
	{"npx starter", "npx create-next-app@latest my-app", []string{"/vercel/next.js"}},
	{"npm create", "npm create vite@latest my-vue-app -- --template vue", []string{"/vitejs/vite"}},
	{"npx unknown binary", "npx tsc --noEmit", nil},
	{"npm run", "npm run build fails", nil},
	{"command in a sentence", "Run npm install react-query and then restart the dev server", []string{"/tanstack/query"}},
	{"failing install", "npm install fails with EACCES", nil},
	{"requirements file", "pip install -r requirements.txt", nil},
	{"editable install", "pip install -e .", nil},
	{"types packages", "npm i -D @types/react @types/node", []string{"/facebook/react"}},
	{"package.json", `{"name": "app", "version": "1.0.0", "dependencies": {"react": "^18.2.0", "next": "14.1.0"}}`, []string{"/facebook/react", "/vercel/next.js"}},
	{"go.mod", "require github.com/gin-gonic/gin v1.9.1", []string{"/gin-gonic/gin"}},
	{"one line of code is no fence", "```npm i vite```\nHow do I use FastAPI?", []string{"/vitejs/vite", "/tiangolo/fastapi"}},
	{"one line of code with blanks", "``` pip install fastapi ``` fails: why?", []string{"/tiangolo/fastapi"}},
	{"requirements lines", "```\nfastapi==0.110.0\nuvicorn[standard]>=0.29\n```", []string{"/tiangolo/fastapi", "uvicorn"}},
	{"Cargo.toml", "```toml\n[package]\nname = \"demo\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\ntokio = \"1\"\n```", []string{"/serde-rs/serde", "tokio"}},
	{"ambiguous name as code", "Should the `express` package be pinned?", []string{"/expressjs/express"}},
	{"ambiguous name quoted", `Is "next" the right choice here?`, []string{"/vercel/next.js"}},
	{"ambiguous at sentence start with a tech noun", "Express middleware runs in order", []string{"/expressjs/express"}},
	{"ambiguous lower case with a tech noun", "my express middleware runs twice", []string{"/expressjs/express"}},
	{"ambiguous after an article, with a tech noun", "how do I register a flask blueprint", []string{"/pallets/flask"}},
	{"english: an article, no tech noun", "pour a flask of tea and a click of salt", nil},
	{"ambiguous after a cue", "how do i fetch data in react", []string{"/facebook/react"}},
	{"ambiguous with a version", "Will react 18 break my app?", []string{"/facebook/react"}},
	{"capitalized in mid-sentence", "I love React and Vue", []string{"/facebook/react"}},
	{"capitalized and versioned", "Upgrading to Next 14 broke my routes", []string{"/vercel/next.js"}},
	{"specific name ranks first", "Migrate from Flask to FastAPI", []string{"/tiangolo/fastapi", "/pallets/flask"}},
	{"hyphenated alias", "go-gin or gin-gonic?", []string{"/gin-gonic/gin"}},
	{"title of two words", "Configure acme widgets for dark mode", []string{"/acme/widgets"}},
	{"library id", "use library /vercel/next.js for the app router", []string{"/vercel/next.js"}},
	{"github URL", "See https://github.com/gin-gonic/gin/issues/1234", []string{"/gin-gonic/gin"}},
	{"config file name", "vite.config.ts is ignored", []string{"/vitejs/vite"}},
	{"config file of an ambiguous name", "next.config.js rewrites are not applied", []string{"/vercel/next.js"}},
	{"which framework", "Should I use Gin or Echo for my API?", []string{"/gin-gonic/gin"}},
	{"adverb at sentence start", "React quickly to user input in the Vite dev server", []string{"/vitejs/vite"}},
	{"possessive", "I read React's docs twice", []string{"/facebook/react"}},
	{"possessive at sentence start", "React's hooks run twice in development", []string{"/facebook/react"}},
	{"typographic possessive", "React\u2019s useEffect runs twice in development", []string{"/facebook/react"}},
	{"possessive before a tech noun", "Express's middleware order is confusing", []string{"/expressjs/express"}},
	{"possessive in a code span", "`React's` hooks", []string{"/facebook/react"}},
	{"possessive apostrophe is no closing quote", "title it 'cobra's revenge' and print it", nil},
	{"english: possessive", "the cobra's venom and the click's sound", nil},
	{"contraction before a version", "It's react 18 that broke the build", []string{"/facebook/react"}},
	{"python import of requests", "import requests\n\nr = requests.get(url)", []string{"/psf/requests"}},
	{"node stack trace", "TypeError: express is not a function\n    at Object.<anonymous> (/app/node_modules/express/lib/router/index.js:10:3)\n    at /app/node_modules/@tanstack/react-query/build/lib/index.js:1:1", []string{"/expressjs/express", "/tanstack/query"}},
	{"python traceback", "Traceback (most recent call last):\n  File \"/usr/lib/python3.11/json/decoder.py\", line 3\n  File \"/venv/lib/python3.11/site-packages/fastapi/routing.py\", line 10, in run", []string{"/tiangolo/fastapi"}},
	{"go panic", "panic: runtime error\n\t/root/go/pkg/mod/github.com/gin-gonic/gin@v1.9.1/context.go:174 +0x2c", []string{"/gin-gonic/gin"}},
	{"strongest evidence first", "I read the Flask docs.\n\n```python\nfrom fastapi import FastAPI\n```", []string{"/tiangolo/fastapi", "/pallets/flask"}},
}

func TestDetect(t *testing.T) {
	if len(detectCases) < 40 {
		t.Fatalf("%d cases; the table must keep at least 40", len(detectCases))
	}
	x := NewIndex(testLibs)
	for _, tt := range detectCases {
		t.Run(tt.name, func(t *testing.T) {
			got := names(x.Detect(tt.prompt))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Detect(%q)\n got %q\nwant %q", tt.prompt, got, tt.want)
			}
		})
	}
}

// names renders candidates as the table writes them.
func names(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		if c.ID != "" {
			out = append(out, c.ID)
		} else {
			out = append(out, c.Name)
		}
	}
	return out
}

func TestDetectFound(t *testing.T) {
	x := NewIndex(testLibs)
	prompt := "Run `npm i react-query` then\n\n```ts\nimport { useQuery } from '@tanstack/react-query'\n```\nand read the React Query docs."
	got := x.Detect(prompt)
	if len(got) != 1 {
		t.Fatalf("got %+v, want one candidate", got)
	}
	c := got[0]
	if c.ID != "/tanstack/query" || c.Name != "TanStack Query" || c.Relevance != 1 {
		t.Errorf("candidate = %+v", c)
	}
	want := []Found{
		{Kind: KindInstall, Via: "npm", Text: "npm i react-query", Offset: strings.Index(prompt, "react-query")},
		{Kind: KindImport, Via: "js", Text: "import { useQuery } from '@tanstack/react-query'", Offset: strings.Index(prompt, "@tanstack")},
		{Kind: KindMention, Via: "text", Text: "React Query", Offset: strings.Index(prompt, "React Query")},
	}
	if !slices.Equal(c.Found, want) {
		t.Errorf("found\n got %+v\nwant %+v", c.Found, want)
	}
	for _, f := range c.Found {
		if !strings.Contains(prompt[f.Offset:], strings.Fields(f.Text)[0]) && f.Kind == KindMention {
			t.Errorf("offset %d does not point at %q", f.Offset, f.Text)
		}
	}
}

// TestDetectPossessiveFound: a name followed by a possessive is reported
// as written, without its 's, at its own offset.
func TestDetectPossessiveFound(t *testing.T) {
	x := NewIndex(testLibs)
	for _, prompt := range []string{"React's hooks run twice", "So React\u2019s hooks run twice"} {
		got := x.Detect(prompt)
		want := Found{Kind: KindMention, Via: "text", Text: "React", Offset: strings.Index(prompt, "React")}
		if len(got) != 1 || !slices.Equal(got[0].Found, []Found{want}) {
			t.Errorf("Detect(%q) = %+v, want React found as %+v", prompt, got, want)
		}
	}
}

// TestWellKnownNamesThatAreEnglishWords: well-known libraries whose names
// are everyday English words ("cobra", "tailwind", "clap") are detected
// by a package, an import, code or corroborating words, never by the
// word alone in prose.
func TestWellKnownNamesThatAreEnglishWords(t *testing.T) {
	x := NewIndex(WellKnown())
	for _, prompt := range []string{
		"Write a script about the cobra, the viper and the mongoose for my son's class",
		"A bevy of reviewers said the chapter was svelte and well paced",
		"Cycling with a tailwind: estimate my speed from this CSV",
		"Turn this storybook into an audiobook script; the playwright will read it",
		"The anthropic principle says we observe a universe fit for observers; explain it",
		"I was asked to testify in court, help me prepare",
		"Write a poem where the audience starts to clap",
	} {
		if got := x.Detect(prompt); len(got) != 0 {
			t.Errorf("Detect(%q) = %+v, want nothing: no library is named", prompt, got)
		}
	}
	for prompt, want := range map[string]string{
		"cargo add clap --features derive":                   "/clap-rs/clap",
		"How do I define subcommands with Cobra?":            "/spf13/cobra",
		"Load the config with viper from env vars":           "/spf13/viper",
		"pip install anthropic":                              "/anthropics/anthropic-sdk-python",
		"import anthropic\n\nclient = anthropic.Anthropic()": "/anthropics/anthropic-sdk-python",
		"npm i -D @playwright/test":                          "/microsoft/playwright",
		"Why do my Playwright tests time out?":               "/microsoft/playwright",
		"My Tailwind classes are purged in production":       "/tailwindlabs/tailwindcss",
		"Tailwind CSS dark mode does not switch":             "/tailwindlabs/tailwindcss",
		"Mongoose schema validation fails on update":         "/automattic/mongoose",
		"`svelte` stores lose their value":                   "/sveltejs/svelte",
		"go get github.com/stretchr/testify":                 "/stretchr/testify",
	} {
		if got := x.Detect(prompt); len(got) != 1 || got[0].ID != want {
			t.Errorf("Detect(%q) = %+v, want %s", prompt, got, want)
		}
	}
}

func TestDetectRelevance(t *testing.T) {
	got := NewIndex(testLibs).Detect("Migrate from Flask to FastAPI")
	if len(got) != 2 || got[0].Relevance != 1 || got[1].Relevance != 0.5 {
		t.Errorf("got %+v; want FastAPI at 1 (a specific name) and Flask at 0.5 (an ambiguous one)", got)
	}
}

// TestDetectRelevanceOfMuchEvidence: evidence two rules find at one
// offset (a command in a code span is read in its line and in its span)
// counts once past the maxFound pieces kept too; it counted twice there,
// so that twelve `npm i lodash` outweighed twelve npm i axios.
func TestDetectRelevanceOfMuchEvidence(t *testing.T) {
	prompt := strings.Repeat("Run npm i axios\n", 12) + strings.Repeat("Run `npm i lodash`\n", 12)
	got := NewIndex(testLibs).Detect(prompt)
	if len(got) != 2 || got[0].Name != "axios" || got[0].Relevance != 1 || got[1].Relevance != 1 {
		t.Errorf("got %+v; want axios and lodash at 1, axios first", got)
	}
}

func TestNewIndexFirstClaimWins(t *testing.T) {
	x := NewIndex([]Library{
		{ID: "/acme/query", Names: []string{"Acme Query", "react-query"}},
		{ID: "/tanstack/query", Names: []string{"TanStack Query", "react-query"}},
	})
	if got := names(x.Detect("npm i react-query")); !slices.Equal(got, []string{"/acme/query"}) {
		t.Errorf("got %q; want the first library to keep a shared name", got)
	}
}

func TestDetectLongPrompt(t *testing.T) {
	x := NewIndex(testLibs)
	long := strings.Repeat("lorem ipsum ", MaxPromptBytes/12+1) + " FastAPI"
	if got := x.Detect(long); len(got) != 0 {
		t.Errorf("a name past MaxPromptBytes was read: %+v", got)
	}
	if got := names(x.Detect("FastAPI " + long)); !slices.Equal(got, []string{"/tiangolo/fastapi"}) {
		t.Errorf("got %q", got)
	}
}

func TestWellKnown(t *testing.T) {
	libs := WellKnown()
	ids := map[string]bool{}
	for _, l := range libs {
		if ids[l.ID] || !strings.HasPrefix(l.ID, "/") || strings.Count(l.ID, "/") != 2 || len(l.Names) < 2 {
			t.Errorf("bad entry %+v", l)
		}
		ids[l.ID] = true
	}
	x := NewIndex(libs)
	for prompt, want := range map[string]string{
		"npm i @tanstack/react-query":         "/tanstack/query",
		"pip install scikit-learn":            "/scikit-learn/scikit-learn",
		"go get github.com/gin-gonic/gin@v1":  "/gin-gonic/gin",
		"cargo add serde":                     "/serde-rs/serde",
		"How do I use FastAPI with Pydantic?": "/tiangolo/fastapi",
	} {
		if got := x.Detect(prompt); len(got) == 0 || got[0].ID != want {
			t.Errorf("Detect(%q) = %+v, want %s first", prompt, got, want)
		}
	}
}

func FuzzDetect(f *testing.F) {
	for _, tt := range detectCases {
		f.Add(tt.prompt)
	}
	x := NewIndex(append(WellKnown(), testLibs...))
	f.Fuzz(func(t *testing.T, prompt string) {
		got := x.Detect(prompt)
		if len(got) > MaxCandidates {
			t.Fatalf("%d candidates", len(got))
		}
		seen := map[string]bool{}
		for i, c := range got {
			key := c.ID + "|" + c.Name
			if seen[key] || c.Name == "" {
				t.Fatalf("candidate %d %+v repeated or unnamed", i, c)
			}
			seen[key] = true
			if c.Relevance <= 0 || c.Relevance > 1 || (i == 0 && c.Relevance != 1) {
				t.Fatalf("candidate %d relevance %v", i, c.Relevance)
			}
			if len(c.Found) == 0 || len(c.Found) > maxFound {
				t.Fatalf("candidate %d has %d found", i, len(c.Found))
			}
			for _, fd := range c.Found {
				if fd.Offset < 0 || fd.Offset >= len(prompt) || len(fd.Text) > maxFoundText {
					t.Fatalf("bad found %+v", fd)
				}
			}
		}
	})
}
