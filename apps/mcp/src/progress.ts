import type { IndexProgress } from '@ca/engine';

/** How an index phase reads in a progress notification. */
export function describeProgress(p: IndexProgress): string {
  const of = (what: string) => (p.total > 0 ? `${what} ${p.done}/${p.total}` : what);
  switch (p.phase) {
    case 'discover':
      return 'indexing: listing files';
    case 'parse':
      return `indexing: ${of('parsing files')}`;
    case 'write':
      return `indexing: ${of('writing files')}`;
    case 'resolve':
      return 'indexing: resolving imports';
    case 'semantic':
      return `indexing: ${p.total > 1 ? of('semantic pass, projects') : 'semantic pass (exact edges)'}`;
    case 'embed':
      return `indexing: ${of('embedding symbols')}`;
  }
}

export interface ProgressTimings {
  /** Nothing is sent before the run has taken this long (a refresh usually takes tens of ms). */
  readonly delayMs: number;
  /** After that, a notification at least this often (repeating the last phase when nothing moved). */
  readonly intervalMs: number;
}

export const DEFAULT_PROGRESS_TIMINGS: ProgressTimings = { delayMs: 500, intervalMs: 5000 };

/**
 * Turns index progress into MCP progress notifications for one request: silent for `delayMs`,
 * then one on each phase change, at most one per `intervalMs / 10` within a phase, and a
 * heartbeat every `intervalMs` while nothing is reported (the TS semantic pass reports only its
 * start), so a client that resets its request timeout on progress keeps waiting. `progress`
 * increases by one per notification, as the protocol requires; there is no total.
 * `stop()` clears the heartbeat.
 */
export function progressNotifier(
  send: (progress: number, message: string) => void,
  timings: ProgressTimings = DEFAULT_PROGRESS_TIMINGS,
  now: () => number = Date.now,
): { readonly listener: (p: IndexProgress) => void; stop(): void } {
  const started = now();
  let count = 0;
  let lastAt = 0;
  let last: IndexProgress | null = null;
  let lastSentPhase: string | null = null;
  const emit = (p: IndexProgress): void => {
    count++;
    lastAt = now();
    lastSentPhase = p.phase;
    send(count, describeProgress(p));
  };
  const heartbeat = setInterval(() => {
    if (last !== null && now() - started >= timings.delayMs && (count === 0 || now() - lastAt >= timings.intervalMs)) emit(last);
  }, Math.max(10, Math.min(timings.intervalMs, 1000)));
  heartbeat.unref();
  return {
    listener: (p) => {
      last = p;
      const t = now();
      if (t - started < timings.delayMs) return;
      if (p.phase !== lastSentPhase || t - lastAt >= timings.intervalMs / 10) emit(p);
    },
    stop: () => clearInterval(heartbeat),
  };
}
