/** The API restart at a small size (in `npm test`): 20 runners of 4 agents, 45 work items. The slow set runs 100 runners (test/slow/api-restart.test.ts). */
import { apiRestartSuite } from './api-restart-suite';

apiRestartSuite({ agents: 4, runnersPerAgent: 5, tasksPerPhase: 15 });
