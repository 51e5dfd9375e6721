/** The worker killed with 20 deliveries in flight (in `npm test`). The full size (220) runs in test/slow/worker-kill.test.ts. */
import { workerKillSuite } from './worker-kill-suite';

workerKillSuite({ pushTasksEach: 3, pullTasksEach: 4, openBeforeKill: 12, minInFlight: 20 });
