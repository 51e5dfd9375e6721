/**
 * The A2A guide's ADK agent (examples/a2a-agent-python/adk_agent.py: ADK's `to_a2a` wrapped in the
 * arena's check), run against the arena as the a2a-sdk one is in `npm test` (test/a2a/python-agents.ts).
 * In the slow set: ADK is a minute of pip and 150 MB, installed here on the first run.
 */
import path from 'node:path';
import { findOrInstallAdk } from '../support/a2a-python';
import { joinsPassesItsGymAndAnswers } from '../a2a/python-agents';

joinsPassesItsGymAndAnswers(path.resolve(__dirname, '../../examples/a2a-agent-python/adk_agent.py'), findOrInstallAdk);
