import { navigationTool } from './navigation.js';

/** `get_references`: every use of a symbol. */
export const getReferences = navigationTool({
  name: 'get_references',
  navigation: 'refs',
  description: 'Every use of a symbol (calls, references, imports).',
});
