// The search query set: identifiers as a developer types them, and natural-language questions
// about what the synthetic index holds (its symbols derive from TypeScript's lib declarations).

/** Real identifiers of the DOM / ES library, some bare, some dotted or partial. */
export const IDENTIFIER_QUERIES = [
  'addEventListener',
  'getBoundingClientRect',
  'createElement',
  'querySelectorAll',
  'ReadableStream',
  'AbortController',
  'requestAnimationFrame',
  'parseFloat',
  'toISOString',
  'structuredClone',
  'IntersectionObserver',
  'TextDecoder',
  'localeCompare',
  'getItem',
  'CanvasRenderingContext2D.drawImage',
];

export const NATURAL_LANGUAGE_QUERIES = [
  'parse a JSON string into an object',
  'add an event listener to an element',
  'convert a date to an ISO string',
  'wait until all promises resolve',
  'read a file as text',
  'cancel a scheduled animation frame',
  'sort the elements of an array in place',
  'find the position of a substring in a string',
  'schedule a callback after a delay',
  'encode a URI component',
  'get the size and position of an element on screen',
  'abort an in-flight network request',
  'format a number for a locale',
  'iterate over the entries of a map',
  'check whether a value is an array',
  'remove a child node from the document',
  'decode bytes into a string',
  'copy text to the clipboard',
  'store a value in local storage',
  'draw an image on a canvas',
  'observe when an element becomes visible',
  'compile TypeScript source into a program',
  'how are errors reported from a web socket',
  'resize observer callback with content rectangles',
  'create a typed array view over a buffer',
];

/**
 * ~50 queries: the fixed identifiers and questions plus `sampled` exact names taken from the
 * index itself (so the name channel has exact hits to find, as it does in a real repository).
 */
export function querySet(db, sampled = 10) {
  const total = db.prepare(`SELECT COUNT(*) FROM nodes WHERE kind IN ('function','class','method')`).pluck().get();
  const step = Math.max(1, Math.floor(total / sampled));
  const names = db
    .prepare(`SELECT name FROM nodes WHERE kind IN ('function','class','method') ORDER BY id LIMIT ? OFFSET ?`)
    .pluck();
  const picked = [];
  for (let i = 0; i < sampled; i++) picked.push(names.get(1, (i * step + 7) % Math.max(1, total)));
  return [
    ...IDENTIFIER_QUERIES.map((q) => ({ q, type: 'identifier' })),
    ...picked.filter(Boolean).map((q) => ({ q, type: 'exact-name' })),
    ...NATURAL_LANGUAGE_QUERIES.map((q) => ({ q, type: 'natural-language' })),
  ];
}

/** Queries used to warm up (not measured): the model, the vector index and SQLite's page cache. */
export const WARMUP_QUERIES = ['load configuration', 'HTMLElement', 'fetch', 'convert string to number', 'Map'];
