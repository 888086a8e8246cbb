// Talks to `asmevo mcp` with the official MCP TypeScript SDK client over stdio (the test
// McpSdk.* in tests/mcp runs it): initialize (the SDK negotiates the protocol revision), list the
// tools, call list_windows and status, read a resource. Writes what it saw as JSON to OUT.json;
// exits non-zero when the SDK rejects anything the server sent.
//   node sdk_session.mjs OUT.json ASMEVO_BINARY ARG...
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [outPath, command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node sdk_session.mjs OUT.json ASMEVO_BINARY ARG...");
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "asmevo-sdk-check", version: "1.0.0" });
try {
  await client.connect(transport);
  const tools = await client.listTools();
  const windows = await client.callTool({ name: "list_windows", arguments: {} });
  const status = await client.callTool({ name: "status", arguments: {} });
  const resources = await client.listResources();
  const listing = await client.readResource({ uri: "asmevo://best/listing" });
  writeFileSync(outPath, JSON.stringify({
    capabilities: client.getServerCapabilities(),
    server: client.getServerVersion(),
    instructions: client.getInstructions() ?? "",
    tools: tools.tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema })),
    list_windows: { isError: windows.isError ?? false, text: windows.content[0]?.text ?? "", structured: windows.structuredContent ?? null },
    status: { isError: status.isError ?? false, structured: status.structuredContent ?? null },
    resources: resources.resources.map((r) => r.uri),
    listing_chars: (listing.contents[0]?.text ?? "").length,
  }) + "\n");
  await client.close();
} catch (e) {
  console.error("MCP SDK client error: " + (e?.stack ?? e));
  process.exit(1);
}
