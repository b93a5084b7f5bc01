import { navigationTool } from './navigation.js';

/** `impact_analysis`: the blast radius of a change, by file. */
export const impactAnalysis = navigationTool({
  name: 'impact_analysis',
  navigation: 'impact',
  description: 'Blast radius of a change: transitive dependents by file, each with its chain. Try depth 3.',
});
