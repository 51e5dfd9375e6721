/** The full fuzz (slow set): forty examples per operation, over a thousand requests. The small size runs in test/hardening/fuzz.test.ts. */
import { fuzzSuite } from '../hardening/fuzz-suite';

fuzzSuite({ examplesPerOperation: 40, minRequests: 1000, minStatefulRequests: 100 });
