// Package context7 talks to the hosted Context7 API (context7.com): it
// searches Context7's libraries and fetches their documentation, for the
// libraries Codex7 has not indexed itself. The server's get-context7-docs
// tool and resolve-library-id's remote matches are built on it.
//
// A Client takes its base URL from CONTEXT7_API_URL (default
// https://context7.com/api) and its key from CONTEXT7_API_KEY (see
// OptionsFromEnv). Without a key every call fails with ErrNoAPIKey, whose
// message is exactly "[Context7 API key not configured]", before anything
// is sent. Invalid arguments fail with ErrInvalidRequest, also before
// anything is sent. The key never appears in an error, a log record or a
// cache file.
//
// # The Context7 API
//
// The contract below is taken from the sources of the official clients,
// github.com/upstash/context7: the MCP server @upstash/context7-mcp
// (packages/mcp/src/lib/api.ts, types.ts, encryption.ts,
// auth/quota-state.ts), the SDK @upstash/context7-sdk
// (packages/sdk/src/commands, http/index.ts, utils/format.ts), and the API
// documentation (docs/api-guide.mdx, docs/api.mdx, docs/openapi.json).
//
// Every request is a GET with the header "Authorization: Bearer <key>".
// This client also sends "Accept" and "User-Agent: codex7-context7"; the
// official MCP server adds telemetry headers (X-Context7-Source,
// X-Context7-Server-Version, X-Context7-Client-IDE…) that this client does
// not send.
//
// Library search, GET {base}/v2/libs/search?libraryName=&query=. Both
// parameters are required: libraryName is the library's name ("react",
// "next.js"), query the user's question, used to rank. This client sends
// the name as query when there is no question. The answer is JSON:
//
//	{"results": [{"id": "/vercel/next.js", "title": "Next.js",
//	  "description": "…", "branch": "canary",
//	  "lastUpdateDate": "2025-11-17T22:20:15.784Z",
//	  "state": "finalized",          // initial|finalized|processing|error|delete
//	  "totalTokens": 824953, "totalSnippets": 3336, "stars": 131745,
//	  "trustScore": 10,              // 0-10, "source reputation"
//	  "benchmarkScore": 91.1,        // 0-100
//	  "versions": ["v15.1.8", "v14.3.0-canary.87"]}],
//	 "metadata": {"authentication": "none"}}   // none|personal|team
//
// Optional fields may be missing, and totalSnippets is -1 when unknown.
// The API guide shows the results as a bare array with "name" for
// "title"; this client reads both forms.
//
// Documentation, GET {base}/v2/context?libraryId=&query=&type=. libraryId
// is "/org/project", or "/org/project/version" for a version listed in the
// search result's versions; query (required) is what the documentation
// should answer; type is "txt" (the default) or "json". With type=json the
// answer is
//
//	{"codeSnippets": [{"codeTitle": "…", "codeDescription": "…",
//	   "codeLanguage": "tsx", "codeTokens": 185, "pageTitle": "…",
//	   "codeId": "https://github.com/…/installation.mdx#_snippet_0",
//	   "codeList": [{"language": "tsx", "code": "…"}]}],
//	 "infoSnippets": [{"pageId": "https://github.com/…/page.mdx",
//	   "breadcrumb": "Guide > Section", "content": "…", "contentTokens": 84}],
//	 "selectedLibrary": "/vercel/next.js", "rules": ["…"]}
//
// (selectedLibrary and rules are optional.) With type=txt it is the same
// snippets as markdown, code snippets first: each snippet is
// "### <title>\n\nSource: <url>\n\n<description or content>" followed, for
// code, by one fenced block per codeList entry, and snippets are separated
// by a line of 32 dashes with a blank line on each side. The last code
// snippet and the first info snippet may follow each other with only a
// blank line between them. An empty body means nothing was found.
//
// Context7 itself has no info/code mode, pages or limits on /v2/context;
// this client fetches the JSON form once (cached) and makes them on its
// side: mode picks infoSnippets ("info", the default) or codeSnippets
// ("code"); limit (1-10, default 10) snippets make a page; page is 1-10.
// An empty topic asks for general documentation: since query is required,
// the query sent is then GeneralQuery.
//
// The older API, used with Options.Legacy: GET {base}/v1/search?query=
// answers {"results": [...]} with the same library fields (plus
// "totalPages"), and GET {base}/v1/{org}/{project}[/{version}]?type=txt&
// topic=&tokens= answers the documentation as text (tokens defaults to
// 10000 upstream). Its snippets are "TITLE: …\nDESCRIPTION: …\nSOURCE: …"
// followed by "LANGUAGE: …\nCODE:" and a fenced block for code, separated
// by a line of 40 dashes. The same splitting reads both text forms: a line
// of ten or more dashes outside a code fence, after a blank line or a
// fence, separates snippets, and so does a "### " heading followed by a
// "Source: " line.
//
// Errors come as JSON {"error": "<code>", "message": "<text>",
// "status": <n>}, where message (or error when message is missing) is
// what to show; a 301 adds "redirectUrl", the library's new id. Statuses:
// 202 library not finalized yet (retry later), 301 library moved, 400
// invalid parameters, 401 invalid or missing API key (keys start with
// "ctx7sk"), 403 access denied or library blocked, 404 library or version
// ("tag_not_found") unknown, 422 library too large or without code, 429
// rate limit or quota exceeded, with Retry-After (seconds or an HTTP date)
// and the quota headers RateLimit-Limit, RateLimit-Remaining (a count or
// "unlimited"), RateLimit-Reset (Unix seconds) and Context7-Quota-Tier
// (X-RateLimit-* spellings are read too), 500 and 503 server errors.
// Each maps to a sentinel error below; a 429 is a *RateLimitError carrying
// Retry-After and the quota headers, and any other status a *StatusError.
//
// # Tokens, caching, logging
//
// DocRequest.Tokens (default 5000, 200 to 50000) caps what Doc returns,
// counted with package tokens over the whole text an agent reads: whole
// snippets are kept in order, and only when the first one alone is too
// large is it cut, at a paragraph and never inside a code block.
//
// With Options.Cache, successful answers are kept (package cache: TTL,
// LRU); errors, timeouts, empty answers and anything that does not parse
// are never stored, so a failure is never remembered as "not found". A
// cached answer that no longer parses is deleted and fetched again.
//
// Each Search logs one record "context7.search" (span, query, success,
// resultLen, cached, duration_ms) and each Doc one "context7.doc" (span,
// library_key, topic, mode, resolvedKey, success, resultLen, cached,
// duration_ms), with the error's message on failure.
package context7
