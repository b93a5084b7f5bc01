import { navigationTool } from './navigation.js';

/** `get_dependents`: what imports or uses a file or symbol. */
export const getDependents = navigationTool({
  name: 'get_dependents',
  navigation: 'dependents',
  description: 'What imports or uses a file or symbol.',
  fileOrSymbol: true,
});
