import { execFileSync } from 'node:child_process';

/**
 * Runs `git -C dir …` and returns its raw stdout; throws on a non-zero exit. `input` goes to stdin.
 * Only plumbing that reads objects is run through here (log, diff, show, ls-tree, cat-file): none
 * of it runs hooks or filter drivers.
 */
export function gitBuffer(dir: string, args: readonly string[], input?: string): Buffer {
  return execFileSync('git', ['-C', dir, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    maxBuffer: 1024 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  });
}

/** `gitBuffer` as UTF-8 text. */
export function gitText(dir: string, args: readonly string[]): string {
  return gitBuffer(dir, args).toString('utf8');
}
