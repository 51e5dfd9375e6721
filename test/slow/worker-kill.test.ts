/** The worker killed with over 200 deliveries in flight (slow set): 220 in all. The small size runs in test/hardening/worker-kill.part.ts. */
import { workerKillSuite } from '../hardening/worker-kill-suite';

workerKillSuite({ pushTasksEach: 40, pullTasksEach: 30, openBeforeKill: 40, minInFlight: 200 });
