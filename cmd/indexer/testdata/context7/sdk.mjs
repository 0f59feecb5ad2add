// sdk.mjs drives a Context7-compatible API with the official
// @upstash/context7-sdk, as a program written against Context7 would, and
// prints what it got as one JSON object on stdout for TestContext7Clients
// (cmd/indexer/context7_test.go) to check.
//
// Usage: node sdk.mjs BASE_URL, where BASE_URL is http://host:port/api.
//
// The SDK (0.3.1) has no base URL option: it always calls
// https://context7.com/api. So fetch is wrapped to send those requests to
// BASE_URL instead, and only those: anything else throws, so nothing leaves
// the machine. The SDK also requires an API key; the server ignores it.
//
// The output is
//   {"sdk": version, "requests": [urls called],
//    "searchJSON": [Library...], "searchTxt": "...",
//    "contextJSON": [Documentation...], "contextTxt": "...",
//    "versionTxt": "...", "unknownError": "what getContext threw"}
import { readFileSync } from "node:fs";

import { Context7 } from "@upstash/context7-sdk";

const base = process.argv[2].replace(/\/$/, "");
const hosted = "https://context7.com/api";
const sdk = JSON.parse(
  readFileSync(new URL("./node_modules/@upstash/context7-sdk/package.json", import.meta.url), "utf8"),
).version;

const requests = [];
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = String(input);
  if (!url.startsWith(hosted + "/")) {
    throw new Error(`unexpected request to ${url}`);
  }
  const local = base + url.slice(hosted.length);
  requests.push(local);
  return realFetch(local, init);
};

const version = process.argv[3];
const c7 = new Context7({ apiKey: "ctx7sk-codex7-test" });
const out = { sdk, requests };
out.searchJSON = await c7.searchLibrary("poll a data source", "widgets", { type: "json" });
out.searchTxt = await c7.searchLibrary("poll a data source", "widgets", { type: "txt" });
out.contextJSON = await c7.getContext("poll a data source", "/acme/widgets", { type: "json" });
out.contextTxt = await c7.getContext("poll a data source", "/acme/widgets", { type: "txt" });
out.versionTxt = await c7.getContext("layout", `/acme/widgets/${version}`, { type: "txt" });
try {
  await c7.getContext("layout", "/acme/nope");
  out.unknownError = "";
} catch (err) {
  out.unknownError = `${err.name}: ${err.message}`;
}
process.stdout.write(JSON.stringify(out));
