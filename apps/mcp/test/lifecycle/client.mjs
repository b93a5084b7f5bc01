// A stand-in MCP client for lifecycle.test.ts, run as its own process so the test can SIGKILL it:
// node client.mjs SERVER_BIN REPO [TOOL ARGS_JSON | --list]
// Starts the server over stdio, then either prints the tool list (--list, and exits) or calls
// TOOL once, prints {"pid": <server pid>, "answered": true} and waits to be killed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, repo, tool, argsJson] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: process.execPath, args: [bin, repo], env: process.env, stderr: 'pipe' });
// The server's stderr is read (and dropped) so it never blocks on a full pipe.
transport.stderr.on('data', () => {});
const client = new Client({ name: 'ca-lifecycle-test', version: '0.0.0' });
await client.connect(transport);
if (tool === '--list') {
  const { tools } = await client.listTools();
  process.stdout.write(`${JSON.stringify(tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema })))}\n`);
  await client.close();
} else {
  const r = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
  process.stdout.write(`${JSON.stringify({ pid: transport.pid, answered: Array.isArray(r.content) })}\n`);
  setInterval(() => {}, 60_000);
}
