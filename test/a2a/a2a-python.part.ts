/**
 * The A2A guide's Python agent on the `a2a-sdk` 1.x (examples/a2a-agent-python/agent.py), run
 * against the arena (python-agents.ts). The SDK is installed by the test set-up, beside the tests.
 * The ADK one goes through the same flow in the slow set (test/slow/adk-a2a.test.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GUIDES_DIR } from '../../api/discovery/guides';
import { findOrInstallA2aPython } from '../support/a2a-python';
import { joinsPassesItsGymAndAnswers } from './python-agents';

const EXAMPLES = path.resolve(__dirname, '../../examples/a2a-agent-python');

joinsPassesItsGymAndAnswers(path.join(EXAMPLES, 'agent.py'), findOrInstallA2aPython);

it('shows both Python agents whole in the A2A guide, as the tests run them', () => {
  const guide = readFileSync(path.join(GUIDES_DIR, 'a2a.md'), 'utf8');
  const blocks = [...guide.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
  for (const file of ['agent.py', 'adk_agent.py'])
    expect(blocks).toContain(readFileSync(path.join(EXAMPLES, file), 'utf8'));
});
