/** The fuzz at a small size (in `npm test`): five examples per operation, no coverage phase. The full size runs in test/slow/fuzz.test.ts. */
import { fuzzSuite } from './fuzz-suite';

fuzzSuite({ phases: 'examples,fuzzing', examplesPerOperation: 5, minRequests: 150, minStatefulRequests: 10 });
