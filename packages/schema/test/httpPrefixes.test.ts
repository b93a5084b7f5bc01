/**
 * Prefix references and facts (decision 038) through their keys and signatures: each shape
 * written and read back, and a malformed or unknown one read as nothing — a call keeps its own
 * pattern (an unknown prefix), never an error or a guessed prefix.
 */
import { describe, expect, it } from 'vitest';
import { clientCallKey, endpointInheritsKey, formatEndpointSignature, parseEndpointInheritsKey, parseClientCallKey, parseEndpointSignature, parsePrefixFactKey, prefixFactKey, type PrefixFact } from '../src/index.js';

describe('prefix references and facts', () => {
  it('a client call key with a reference reads back; a malformed reference leaves the call as without one', () => {
    const prefix = { ref: { kind: 'import' as const, from: 'src/environments/environment', name: 'environment', path: 'apiUrl' }, slash: false, rest: ['series', '{}'] };
    const key = clientCallKey('GET', '~/series/{}', prefix);
    expect(key).toBe('http:GET ~/series/{} @{"ref":{"kind":"import","from":"src/environments/environment","name":"environment","path":"apiUrl"},"slash":false,"rest":["series","{}"]}');
    expect(parseClientCallKey(key)).toEqual({ method: 'GET', segments: ['series', '{}'], prefixKnown: false, prefix });
    const plain = { method: 'GET', segments: ['series', '{}'], prefixKnown: false };
    // Not JSON, an unknown kind, a rest that is no list of strings: the call without a reference.
    expect(parseClientCallKey('http:GET ~/series/{} @{not json}')).toEqual(plain);
    expect(parseClientCallKey('http:GET ~/series/{} @{"ref":{"kind":"global","name":"x"},"slash":true,"rest":[]}')).toEqual(plain);
    expect(parseClientCallKey('http:GET ~/series/{} @{"ref":{"kind":"import","from":"a","name":"b","path":""},"slash":true,"rest":[1]}')).toEqual(plain);
    // A known prefix has no reference to resolve: it is ignored.
    expect(parseClientCallKey('http:GET /api/x @{"ref":{"kind":"import","from":"a","name":"b","path":""},"slash":true,"rest":[]}')).toEqual({ method: 'GET', segments: ['api', 'x'], prefixKnown: true });
  });

  it('every fact kind reads back from its key; a malformed key is no fact', () => {
    const facts: PrefixFact[] = [
      { kind: 'const', name: 'environment', path: 'api.reports', value: '/api/reports/' },
      { kind: 'ctor', class: 'ServiceHelpers', field: 'url', param: 1, hrefParam: 2 },
      { kind: 'route', class: 'V2Controller', templates: [], attributes: ['ApiV2'], base: 'ControllerBase' },
      { kind: 'routeAttribute', class: 'ApiV1', template: 'api/v1/[controller]' },
    ];
    for (const f of facts) expect(parsePrefixFactKey(prefixFactKey(f))).toEqual(f);
    expect(parsePrefixFactKey('httpfact:{"kind":"ctor","class":"A","field":"url","param":"1","hrefParam":null}')).toBeNull();
    expect(parsePrefixFactKey('httpfact:{"kind":"route","class":"A","templates":["x"],"base":null}')).toBeNull();
    expect(parsePrefixFactKey('httpfact:[1]')).toBeNull();
    expect(parsePrefixFactKey('http:GET /x')).toBeNull();
  });

  it('where the prefix of an endpoint may come from rides in an edge key that reads back; its signature stays what users read', () => {
    const inherits = { base: 'BaseApiController', attributes: [], template: '{seriesId}', controller: 'Series', action: 'Get', area: null };
    const key = endpointInheritsKey(inherits);
    expect(key).toBe('httpinherits:{"base":"BaseApiController","attributes":[],"template":"{seriesId}","controller":"Series","action":"Get","area":null}');
    expect(parseEndpointInheritsKey(key)).toEqual(inherits);
    expect(parseEndpointInheritsKey('httpinherits:{"base":null,"attributes":[1],"template":"x","controller":"A","action":"B","area":null}')).toBeNull();
    expect(parseEndpointInheritsKey('httpfact:{"base":null}')).toBeNull();
    const sig = { method: 'GET', template: '/{seriesId}', params: [{ source: 'route' as const, type: 'int', name: 'seriesId' }], approximate: 'the route prefix may be inherited from BaseApiController, declared in another file' };
    const text = formatEndpointSignature(sig);
    expect(text).toBe('GET /{seriesId} [route int seriesId] (approximate: the route prefix may be inherited from BaseApiController, declared in another file)');
    expect(parseEndpointSignature(text)).toEqual(sig);
  });
});
