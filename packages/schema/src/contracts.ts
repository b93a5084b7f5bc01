/**
 * The shape of an API contract's operation (an OpenAPI/Swagger document, decision 049): an
 * `endpoint` node named like the C# endpoints (`GET /api/orders/{id}`) whose symbol key says it
 * comes from a contract, and the key of the `handles` edge the engine points at the C#
 * endpoint serving it.
 */

/** Symbol keys of contract operations start with it (`contract:GET /api/orders/{id}`). */
export const CONTRACT_KEY_PREFIX = 'contract:';
/** Target keys of an operation's `handles` edge start with it, until the linker resolves it. */
export const OPERATION_LINK_KEY_PREFIX = 'operation:';

/** `contract:GET /api/orders/{id}`: the symbol key of an operation node. */
export function contractKey(method: string, template: string): string {
  return `${CONTRACT_KEY_PREFIX}${method} ${template}`;
}

/** Whether a node's symbol key is a contract operation's. */
export function isContractKey(key: string): boolean {
  return key.startsWith(CONTRACT_KEY_PREFIX);
}

/** `operation:GET /api/orders/{id}`: the target key of an operation's unresolved `handles` edge. */
export function operationLinkKey(method: string, template: string): string {
  return `${OPERATION_LINK_KEY_PREFIX}${method} ${template}`;
}

/** What an operation's signature says beyond its name. */
export interface OperationSignature {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The normalised path, server/basePath prefix applied. */
  readonly template: string;
  readonly operationId: string | null;
  readonly tags: readonly string[];
}

/** `GET /api/orders/{id} (operation Orders_Get; tags Orders, Admin)`: the parts only when present. */
export function formatOperationSignature(s: OperationSignature): string {
  const parts: string[] = [];
  if (s.operationId !== null) parts.push(`operation ${s.operationId}`);
  if (s.tags.length > 0) parts.push(`tags ${s.tags.join(', ')}`);
  return parts.length > 0 ? `${s.method} ${s.template} (${parts.join('; ')})` : `${s.method} ${s.template}`;
}

/** The inverse of {@link formatOperationSignature}; null when `text` is not an operation's signature. */
export function parseOperationSignature(text: string): OperationSignature | null {
  const m = /^([A-Z]+) (\/\S*)(?: \((?:operation (\S+))?(?:; )?(?:tags (.*))?\))?$/.exec(text);
  if (!m) return null;
  return { method: m[1]!, template: m[2]!, operationId: m[3] ?? null, tags: m[4] ? m[4].split(', ') : [] };
}
