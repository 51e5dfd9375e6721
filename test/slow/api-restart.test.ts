/** The API restart at full size (slow set): 100 runners of 10 agents, 120 work items. The small size runs in test/hardening/api-restart.part.ts. */
import { apiRestartSuite } from '../hardening/api-restart-suite';

apiRestartSuite({ agents: 10, runnersPerAgent: 10, tasksPerPhase: 40 });
