export { startUi, createUiHandler, servePages, SESSION_COOKIE } from './server.js';
export type { UiServerOptions, RunningUi, UiHandler, UiHandlerOptions } from './server.js';
export { ApiError, IndexRuns, UiRepoSet, handleApi, splitQuery } from './api.js';
export type { IndexState } from './api.js';
export { engineRepos, sessionRepos, repoNames } from './repos.js';
export type { UiRepo } from './repos.js';
export { runUiCli, DEFAULT_UI_PORT } from './cli.js';
