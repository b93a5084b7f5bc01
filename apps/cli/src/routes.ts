/**
 * `ca routes`: the HTTP endpoints of the index (ASP.NET attribute routes and minimal APIs), one
 * line each with the handler and where the route is declared; `--json` for the full records.
 */
import type { RouteRecord, RoutesReport, UnmatchedHttp } from '@ca/engine';
import { CaError } from '@ca/schema';
import { printJson } from './output.js';
import { labelOption, openRepo, type QueryValues } from './query.js';

function handlerText(r: RouteRecord): string {
  if (r.contract !== null && r.handlers.length === 0) return '(contract: no endpoint serves it)';
  if (r.handlers.length === 0) return '(no handler)';
  if (r.contract !== null) return `contract → ${r.handlers.map((h) => `${h.qualifiedName} (${h.confidence})`).join(', ')}`;
  return r.handlers.map((h) => `${h.qualifiedName}${h.resolved ? '' : ' (unresolved)'}`).join(', ');
}

/** `GET    /api/orders/{id}  Shop.OrdersController.GetById  Controllers/OrdersController.cs:15`. */
function routeLine(r: RouteRecord, methodWidth: number, templateWidth: number): string {
  let line = `${r.method.padEnd(methodWidth)}  ${r.template.padEnd(templateWidth)}  ${handlerText(r)}  ${r.path}:${r.line}`;
  if (r.clients > 0) line += `  (${r.clients} client call${r.clients === 1 ? '' : 's'})`;
  if (r.approximate) line += `\n${' '.repeat(methodWidth + 2)}approximate: ${r.approximate}`;
  return line;
}

/** `ca routes --unmatched`: client calls no endpoint serves, then endpoints no client calls. */
function printUnmatched(u: UnmatchedHttp, json: boolean): number {
  if (json) {
    printJson(u);
    return 0;
  }
  process.stdout.write(`Client calls with no endpoint (${u.calls.length}):\n`);
  for (const c of u.calls) process.stdout.write(`  ${c.request}  ${c.path}:${c.line}\n`);
  process.stdout.write(`Endpoints with no client call (${u.endpoints.length}):\n`);
  for (const e of u.endpoints) process.stdout.write(`  ${e.name}  ${e.path}:${e.line}\n`);
  if (u.contract) {
    process.stdout.write(`Contract operations no endpoint serves (${u.contract.operations.length}):\n`);
    for (const e of u.contract.operations) process.stdout.write(`  ${e.name}  ${e.path}:${e.line}\n`);
    process.stdout.write(`Endpoints missing from the contract (${u.contract.endpoints.length}):\n`);
    for (const e of u.contract.endpoints) process.stdout.write(`  ${e.name}  ${e.path}:${e.line}\n`);
  }
  return 0;
}

/** `ca routes [--unmatched] [--json] [--repo DIR] [--label NAME]`. */
export async function cmdRoutes(values: QueryValues & { json: boolean; unmatched?: boolean }, args: string[]): Promise<number> {
  if (args.length > 0) throw new CaError('usage', 'routes takes no arguments (ca routes [--unmatched] [--json] [--repo DIR] [--label NAME])');
  const engine = openRepo(values, 'routes');
  if (values.unmatched === true) {
    let unmatched: UnmatchedHttp;
    try {
      unmatched = engine.unmatchedHttp(labelOption(values, engine));
    } finally {
      engine.close();
    }
    return printUnmatched(unmatched, values.json);
  }
  let report: RoutesReport;
  try {
    report = engine.routes(labelOption(values, engine));
  } finally {
    engine.close();
  }
  if (values.json) {
    printJson(report);
    return 0;
  }
  if (report.total === 0) {
    process.stdout.write('No endpoints in the index (ASP.NET Core controllers and minimal APIs are found in C# files).\n');
    return 0;
  }
  const methodWidth = Math.max(...report.routes.map((r) => r.method.length));
  // Long templates are not padded past this: one outlier would push every line right.
  const templateWidth = Math.min(48, Math.max(...report.routes.map((r) => r.template.length)));
  for (const r of report.routes) process.stdout.write(`${routeLine(r, methodWidth, templateWidth)}\n`);
  process.stdout.write(`${report.total} endpoint${report.total === 1 ? '' : 's'}${report.approximate > 0 ? `, ${report.approximate} approximate` : ''}\n`);
  return 0;
}
