export { createServer, serveStdio, runMcpCli, stderrLog } from './server.js';
export type { ServerOptions, CodeAgentServer } from './server.js';
export { Session } from './session.js';
export type { SessionOptions, RefreshState } from './session.js';
export { TOOL_NAMES, DEFAULT_MAX_NODES, MAX_QUERY_CHARS } from './tools.js';
