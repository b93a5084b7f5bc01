import { CaError, toCaError } from '@ca/schema';

/** Writes a value as JSON on stdout (one document, newline-terminated). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Exit code for an error: 2 for usage errors, 1 for failures. */
export function exitCodeOf(error: CaError): number {
  return error.isUsage ? 2 : 1;
}

/** Reports an error the CLI way: one line on stderr, or the JSON error shape on stdout. */
export function reportError(e: unknown, json: boolean): number {
  const err = toCaError(e);
  if (json) printJson({ error: { code: err.code, message: err.message } });
  process.stderr.write(`ca: ${err.message.split('\n')[0]}\n`);
  return exitCodeOf(err);
}

/** `ca watch --json`: a failed run as one JSON line (the stream stays one object per line). */
export function watchErrorLine(e: unknown): string {
  const err = toCaError(e);
  return `${JSON.stringify({ event: 'error', error: { code: err.code, message: err.message } })}\n`;
}

/** A single-line progress bar on stderr, only on a TTY and never with --json. */
export class ProgressBar {
  private lastDraw = 0;
  private active = false;
  constructor(private readonly enabled: boolean) {}

  update(label: string, done: number, total: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastDraw < 80 && done < total) return;
    this.lastDraw = now;
    this.active = true;
    const width = 30;
    const ratio = total > 0 ? Math.min(done / total, 1) : 0;
    const filled = Math.round(ratio * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    const counts = total > 0 ? ` ${done}/${total}` : '';
    process.stderr.write(`\r${label.padEnd(9)} ${bar}${counts}\u001b[K`);
  }

  done(): void {
    if (this.active) process.stderr.write('\r\u001b[K');
    this.active = false;
  }
}
