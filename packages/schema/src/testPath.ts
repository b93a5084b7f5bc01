/**
 * Paths of test code: test/spec folders, `*.test.*`, `*.spec.*`, `*Tests` projects, fixtures.
 * Search ranks these down, navigation lists them last, and the filter field `is:test` selects
 * them; one definition keeps the three in agreement.
 */
export const TEST_PATH_PATTERN =
  /(^|\/)(__tests__|__mocks__|tests?|specs?|fixtures?|e2e|testing)(\/|$)|\.(test|spec|stories)\.[cm]?[jt]sx?$|(^|\/)[^/]*Tests?(\.[A-Za-z]+)?\/|Tests?\.cs$/;

/** True when `path` (repo-relative, POSIX) is test code. */
export function isTestPath(path: string): boolean {
  return TEST_PATH_PATTERN.test(path);
}
