// sdk-client.mjs drives an MCP server with the official TypeScript SDK's
// Client, as a TypeScript agent would, and prints what it saw as one JSON
// object on stdout for TestClients (cmd/indexer/clients_test.go) to check.
//
// Usage: node sdk-client.mjs SPEC.json, where SPEC is
//   {"transport": "stdio", "command": "...", "args": ["..."]}
//   or {"transport": "http", "url": "http://host:port/mcp"},
//   plus "calls": [{"name": "case name", "tool": "...", "arguments": {...}}].
//
// listTools parses every tool with the SDK's zod schemas (inputSchema and
// outputSchema must be JSON Schema objects of type "object") and compiles each
// outputSchema with the SDK's Ajv validator; callTool then checks
// structuredContent against it and throws when it does not match. On top of
// that every schema is checked against the JSON Schema 2020-12 meta-schema
// (the MCP default dialect), and each call's arguments against its tool's
// inputSchema, so the output says whether the client would have sent them.
//
// The output is
//   {"sdk": version, "protocolVersion": negotiated (HTTP only),
//    "server": {"name", "version"},
//    "tools": [{"name", "inputSchema", "outputSchema", "schemaErrors": [...]}],
//    "calls": [{"name", "argumentsValid", "argumentsErrors", "isError",
//               "text", "structuredContent", "error"}]}
// where "error" is what callTool threw (a protocol error or an output that
// does not match its schema). A failure before the calls (connect, list)
// exits 1 with the error on stderr.
import { readFileSync } from "node:fs";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv2020 from "ajv/dist/2020.js";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const sdk = JSON.parse(
  readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8"),
).version;

// A strict 2020-12 validator: meta-schema checks on, unknown keywords and
// formats are errors.
const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true, validateSchema: true });

function schemaErrors(where, schema) {
  if (schema === undefined) return [];
  if (!ajv.validateSchema(schema)) {
    return ajv.errors.map((e) => `${where}${e.instancePath}: ${e.message}`);
  }
  try {
    ajv.compile(schema);
  } catch (err) {
    return [`${where}: ${err.message}`];
  }
  return [];
}

const transport =
  spec.transport === "http"
    ? new StreamableHTTPClientTransport(new URL(spec.url))
    : new StdioClientTransport({ command: spec.command, args: spec.args, stderr: "inherit" });
const client = new Client({ name: "codex7-sdk-client-test", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
const inputSchemas = new Map();
const out = {
  sdk,
  protocolVersion: transport.protocolVersion ?? null,
  server: client.getServerVersion(),
  tools: tools.map((tool) => {
    inputSchemas.set(tool.name, ajv.compile(tool.inputSchema));
    return {
      name: tool.name,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema ?? null,
      schemaErrors: [
        ...schemaErrors("inputSchema", tool.inputSchema),
        ...schemaErrors("outputSchema", tool.outputSchema),
      ],
    };
  }),
  calls: [],
};

for (const call of spec.calls ?? []) {
  const rec = { name: call.name, argumentsValid: null, argumentsErrors: [] };
  const validate = inputSchemas.get(call.tool);
  if (validate) {
    rec.argumentsValid = validate(call.arguments);
    rec.argumentsErrors = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
  }
  try {
    const res = await client.callTool({ name: call.tool, arguments: call.arguments });
    rec.isError = res.isError === true;
    rec.text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
    rec.structuredContent = res.structuredContent ?? null;
  } catch (err) {
    rec.error = `${err.name}: ${err.message}`;
  }
  out.calls.push(rec);
}

await client.close();
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
