import { navigationTool } from './navigation.js';

/** `get_callees`: what a function or method calls. */
export const getCallees = navigationTool({
  name: 'get_callees',
  navigation: 'callees',
  description: 'What a function or method calls.',
});
