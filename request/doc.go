// Package request reads what agents send, the same way on every transport
// (MCP tools, the REST API, the CLI): library ids in any of the forms
// agents write them (ParseKey), the topics they ask for (NormalizeTopic),
// document paths (CleanPath), whole numbers (ParseWhole), the limits and
// token budgets every request is held to (CheckLimits, ClampTokens), the
// one rule on control and invisible characters (CheckText), and the Scope
// of libraries a request may see. Everything here is pure: no catalog, no
// I/O.
package request
