import { navigationTool } from './navigation.js';

/** `get_implementations`: implementations, subclasses and overrides. */
export const getImplementations = navigationTool({
  name: 'get_implementations',
  navigation: 'impls',
  description: 'Implementations, subclasses, overrides.',
});
