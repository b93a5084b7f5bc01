/** Environment for git in tests: a fixed identity, no system or user configuration. */
export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ann Example',
  GIT_AUTHOR_EMAIL: 'ann@example.com',
  GIT_COMMITTER_NAME: 'Ann Example',
  GIT_COMMITTER_EMAIL: 'ann@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
