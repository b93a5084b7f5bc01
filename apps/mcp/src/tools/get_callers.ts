import { navigationTool, NAVIGATION_NOTE } from './navigation.js';

/** `get_callers`: who calls a function or method (the first navigation tool: its description carries the shared note). */
export const getCallers = navigationTool({
  name: 'get_callers',
  navigation: 'callers',
  description: 'Who calls a function or method. Use before changing it.' + NAVIGATION_NOTE,
});
