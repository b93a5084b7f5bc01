import { DEFAULT_PROGRESS_TIMINGS, progressNotifier } from '../progress.js';
import type { Session } from '../session.js';
import type { RequestExtra } from './context.js';

/**
 * Index progress as MCP progress notifications, when the request asked for them (a progress
 * token); returns the function that stops them, or null when none were asked for.
 */
export function reportProgress(session: Session, extra: RequestExtra): (() => void) | null {
  const token = extra._meta?.progressToken;
  if (token === undefined) return null;
  const timings = { ...DEFAULT_PROGRESS_TIMINGS, ...session.options.progress };
  const notifier = progressNotifier((progress, message) => {
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch((e: unknown) => {
      session.options.log(`progress notification not sent: ${String(e)}`);
    });
  }, timings);
  const unsubscribe = session.onProgress(notifier.listener);
  return () => {
    unsubscribe();
    notifier.stop();
  };
}
