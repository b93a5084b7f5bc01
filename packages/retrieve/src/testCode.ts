import { isTestPath as isTestPathOf } from '@ca/schema';

/** True when `path` is test code (ranked down unless the query is about tests); defined in @ca/schema. */
export function isTestPath(path: string): boolean {
  return isTestPathOf(path);
}
