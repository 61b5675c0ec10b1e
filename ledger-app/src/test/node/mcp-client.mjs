// Test code only: drives one of the official MCP TypeScript SDK clients through the reference edge for
// TypeScriptInteropTest, and prints what happened as one JSON line on stdout.
//
//   node mcp-client.mjs '{"url": "...", "token": "...", "era": "legacy" | "modern", "sessionId": "...",
//                         "calls": [{"tool": "quote", "arguments": {...}}], "terminate": true}'
//
// era "legacy": @modelcontextprotocol/sdk 1.x, which initializes, unless sessionId is given: its transport then
//               reuses that Mcp-Session-Id and the client connects without initializing.
// era "modern": @modelcontextprotocol/client 2.x pinned to revision 2026-07-28 (server/discover, no session);
//               with "negotiation": "auto" it chooses the era from the server's answer to server/discover instead.
// terminate: after the calls, the 1.x transport's terminateSession() (DELETE /mcp).
//
// Every call's result or error is reported; the process exits 0 unless the plan itself is bad.
const plan = JSON.parse(process.argv[2]);
const headers = { Authorization: `Bearer ${plan.token}` };
const report = { calls: [] };

function failure(e) {
  return { message: String(e?.message ?? e), code: e?.code ?? null };
}

async function connect() {
  if (plan.era === 'legacy') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const transport = new StreamableHTTPClientTransport(new URL(plan.url), {
      sessionId: plan.sessionId ?? undefined,
      requestInit: { headers },
    });
    const client = new Client({ name: 'ts-sdk-1', version: '1.32.2' });
    await client.connect(transport);
    return { client, transport, version: () => transport.protocolVersion ?? null };
  }
  if (plan.era === 'modern') {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
    const client = new Client({ name: 'ts-client-2', version: '2.4.0' },
      { versionNegotiation: { mode: plan.negotiation === 'auto' ? 'auto' : { pin: '2026-07-28' } } });
    await client.connect(transport);
    return { client, transport, version: () => client.getNegotiatedProtocolVersion() ?? null };
  }
  throw new Error(`unknown era ${plan.era}`);
}

let session;
try {
  session = await connect();
  report.connected = true;
  report.sessionId = session.transport.sessionId ?? null;
  report.protocolVersion = session.version();
} catch (e) {
  report.connected = false;
  report.error = failure(e);
}
if (session) {
  for (const call of plan.calls ?? []) {
    try {
      const result = await session.client.callTool({ name: call.tool, arguments: call.arguments ?? {} });
      report.calls.push({ tool: call.tool, result });
    } catch (e) {
      report.calls.push({ tool: call.tool, error: failure(e) });
    }
  }
  if (plan.terminate) {
    try {
      await session.transport.terminateSession();
      report.terminated = true;
    } catch (e) {
      report.terminated = false;
      report.error = failure(e);
    }
  }
  await session.client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report) + '\n');
