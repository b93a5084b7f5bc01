/**
 * `ca graph`: the index's graph, or the part a filter selects, as GraphML, JSON, DOT or Mermaid
 * (the engine's one serializer), streamed to stdout or to `--out FILE`.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { parseGraphFormat, type GraphExportReport } from '@ca/engine';
import { CaError } from '@ca/schema';
import { printJson } from './output.js';
import { filterOf, labelOption, openRepo, type QueryValues } from './query.js';

/** The options `ca graph` reads. */
export type GraphValues = QueryValues & { format?: string; out?: string; 'max-nodes'?: string };

/** Characters gathered before a write: few system calls, bounded memory. */
const FLUSH_AT = 1 << 16;

/** A sink gathering small pieces into writes of about `FLUSH_AT` characters. */
class BufferedSink {
  private parts: string[] = [];
  private size = 0;

  constructor(private readonly flushTo: (text: string) => void) {}

  write = (chunk: string): void => {
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.size >= FLUSH_AT) this.flush();
  };

  flush(): void {
    if (this.parts.length === 0) return;
    const text = this.parts.join('');
    this.parts = [];
    this.size = 0;
    this.flushTo(text);
  }
}

/** `ca graph [--filter EXPR] [--format F] [--out FILE] [--max-nodes N]`. */
export async function cmdGraph(values: GraphValues, args: string[]): Promise<number> {
  if (args.length > 0) throw new CaError('usage', 'graph takes no positional arguments (select a part with --filter EXPR)');
  const format = parseGraphFormat(values.format ?? 'graphml');
  const rawMax = values['max-nodes'];
  if (rawMax !== undefined && (!/^\d+$/.test(rawMax) || Number(rawMax) < 1)) throw new CaError('usage', `--max-nodes must be a positive integer (got "${rawMax}")`);
  const filter = filterOf(values);
  const engine = openRepo(values, 'graph');
  try {
    const options = { ...(filter !== undefined ? { filter } : {}), ...(rawMax !== undefined ? { maxNodes: Number(rawMax) } : {}), ...labelOption(values, engine) };
    const report = values.out === undefined ? toStdout((write) => engine.graph(format, write, options)) : toFile(values.out, (write) => engine.graph(format, write, options));
    // The graph owns stdout (unless --out): the summary goes to stderr, or stdout with --out --json.
    if (values.out !== undefined && values.json) printJson({ out: values.out, format, ...report });
    else {
      for (const n of report.notices) process.stderr.write(`notice: ${n}\n`);
      if (values.out !== undefined) process.stdout.write(`wrote ${report.nodes} nodes, ${report.edges} edges (${report.unresolved} unresolved targets) to ${values.out}\n`);
    }
    return 0;
  } finally {
    engine.close();
  }
}

function toStdout(run: (write: (chunk: string) => void) => GraphExportReport): GraphExportReport {
  const sink = new BufferedSink((text) => process.stdout.write(text));
  const report = run(sink.write);
  sink.flush();
  return report;
}

/** Written to a temporary file renamed over FILE at the end: a failed export leaves FILE as it was. */
function toFile(path: string, run: (write: (chunk: string) => void) => GraphExportReport): GraphExportReport {
  const temp = `${path}.tmp-${process.pid}`;
  let fd: number;
  try {
    fd = openSync(temp, 'w');
  } catch (e) {
    throw new CaError('io_error', `cannot write --out ${path}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const sink = new BufferedSink((text) => writeSync(fd, text));
    const report = run(sink.write);
    sink.flush();
    closeSync(fd);
    renameSync(temp, path);
    return report;
  } catch (e) {
    // Leave nothing behind but the original FILE; the error itself is rethrown.
    try {
      closeSync(fd);
    } catch (closeError) {
      // Already closed (the failure came after closeSync): nothing to release.
      void closeError;
    }
    rmSync(temp, { force: true });
    throw e;
  }
}
