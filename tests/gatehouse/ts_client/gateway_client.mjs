// An agent built on the MCP TypeScript SDK's client (@modelcontextprotocol/client, from npm),
// calling Gatehouse's endpoint as any such agent would; run by
// tests/gatehouse/test_ts_client.py and tests/browser/test_ts_client_task.py.
//
//   node gateway_client.mjs NODE_MODULES
//
// NODE_MODULES is .peers/npm/node_modules (the packages are pinned in peers/package.json); the
// endpoint and token come in GATEHOUSE_URL and GATEHOUSE_TOKEN (never on the command line),
// the e-mail to send in GATEHOUSE_BODY. It prints one JSON object a line, which the tests read
// as it goes:
//
//   {"event": "connected", "era": ..., "tasks": ...}  the negotiated era, the tasks generation
//   {"event": "tools", "names": [...]}                what tools/list offered
//   {"event": "allowed", "result": {...}}             filesystem__list_directory's result
//   {"event": "task", "task": {...}}                  each state of the send's task, as seen
//   {"event": "result", "kind": ..., "result": {...}} the send's outcome, once
//   {"event": "error", "message": ...}                anything that went wrong (exit 1)
//
// The send declares the tasks extension through @modelcontextprotocol/ext-tasks, the SDK's
// companion package for it, which polls tasks/get until the task ends. On a 2026-07-28 server
// that package needs the host to send tools/call and tasks/* itself (`rawDispatch`): the
// client's own codec does not carry the extension's result shapes yet (ext-tasks' README,
// "Adapters and schemas"). That is a plain JSON-RPC POST to the same endpoint, below.

import path from "node:path";
import { pathToFileURL } from "node:url";

const PROTOCOL_VERSION = "2026-07-28";
const CLIENT_INFO = { name: "gatehouse-ts-client-test", version: "1.0.0" };

const [nodeModules] = process.argv.slice(2);
const url = process.env.GATEHOUSE_URL;
const token = process.env.GATEHOUSE_TOKEN;
const body = process.env.GATEHOUSE_BODY;

// Both as ES modules from the same files: ext-tasks imports the client's ESM build, and its
// instanceof checks need the same classes the script uses.
const load = (entry) => import(pathToFileURL(path.join(nodeModules, entry)).href);
const { Client, StreamableHTTPClientTransport } = await load("@modelcontextprotocol/client/dist/index.mjs");
const { createTaskSessionFromClient, resultFromTaskOutcome } = await load(
  "@modelcontextprotocol/ext-tasks/dist/client/index.js",
);

const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
const authorization = { Authorization: `Bearer ${token}` };

let nextId = 1;

// The host's own request path for the task traffic: one POST per message, answered with JSON
// or with an event stream whose response carries the request's id (the SDK's transport does
// the same for the client's other requests).
async function rawDispatch(request, options = {}) {
  const message = { jsonrpc: "2.0", id: `raw-${nextId++}`, ...request };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...authorization,
      ...(options.context?.headers ?? {}),
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": PROTOCOL_VERSION,
      // 2026-07-28's routing headers, which the endpoint checks against the body.
      "Mcp-Method": message.method,
      ...(message.method === "tools/call" ? { "Mcp-Name": message.params.name } : {}),
    },
    body: JSON.stringify(message),
    signal: options.signal,
  });
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${url}: ${await response.text()}`);
  const text = await response.text();
  const messages = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => JSON.parse(line.slice(5)))
    : [JSON.parse(text)];
  const answer = messages.find((m) => m.id === message.id && ("result" in m || "error" in m));
  if (answer === undefined) throw new Error(`no response to ${message.method} in: ${text.slice(0, 500)}`);
  return "error" in answer ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result };
}

const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: authorization } }));
  const session = createTaskSessionFromClient(client, {
    endpointId: url,
    rawDispatch,
    v2RequestFraming: { protocolVersion: PROTOCOL_VERSION, clientInfo: CLIENT_INFO, clientCapabilities: {} },
  });
  say({
    event: "connected",
    era: client.getProtocolEra(),
    tasks: client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/tasks"] !== undefined,
  });
  const { tools } = await client.listTools();
  say({ event: "tools", names: tools.map((tool) => tool.name) });
  say({ event: "allowed", result: await client.callTool({ name: "filesystem__list_directory", arguments: {} }) });

  const execution = await session.callTool(
    "email__send_email",
    { to: "bob@example.com", body },
    { task: { preference: "require" } },
  );
  const { outcome } = await execution.settle({
    onEvent: (event) => {
      if (event.type === "task") say({ event: "task", task: event.task.raw });
    },
  });
  say({ event: "result", kind: execution.kind, result: resultFromTaskOutcome(outcome) });
  await session.close();
} catch (error) {
  say({ event: "error", message: String(error?.stack ?? error), cause: String(error?.cause?.stack ?? error?.cause) });
  process.exitCode = 1;
} finally {
  await client.close();
}
