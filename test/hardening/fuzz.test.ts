/** The fuzz at a small size (in `npm test`): a few examples per operation. The full size runs in test/slow/fuzz.test.ts. */
import { fuzzSuite } from './fuzz-suite';

fuzzSuite({ examplesPerOperation: 4, minRequests: 100, minStatefulRequests: 10 });
