/** Paths of test code: test/spec folders, `*.test.*`, `*.spec.*`, `*Tests` projects, fixtures. */
const TEST_PATH =
  /(^|\/)(__tests__|__mocks__|tests?|specs?|fixtures?|e2e|testing)(\/|$)|\.(test|spec|stories)\.[cm]?[jt]sx?$|(^|\/)[^/]*Tests?(\.[A-Za-z]+)?\/|Tests?\.cs$/;

/** True when `path` is test code (ranked down unless the query is about tests). */
export function isTestPath(path: string): boolean {
  return TEST_PATH.test(path);
}
