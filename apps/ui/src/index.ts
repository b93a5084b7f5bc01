export { startUi, SESSION_COOKIE } from './server.js';
export type { UiServerOptions, RunningUi } from './server.js';
export { ApiError, IndexRuns, handleApi } from './api.js';
export type { IndexState } from './api.js';
export { runUiCli, DEFAULT_UI_PORT } from './cli.js';
