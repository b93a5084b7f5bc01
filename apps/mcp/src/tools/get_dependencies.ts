import { navigationTool } from './navigation.js';

/** `get_dependencies`: what a file or symbol imports and uses. */
export const getDependencies = navigationTool({
  name: 'get_dependencies',
  navigation: 'deps',
  description: 'What a file or symbol imports and uses.',
  fileOrSymbol: true,
});
