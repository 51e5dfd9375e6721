/** The full fuzz (slow set): the coverage phase and forty examples per operation, over a thousand requests. The small size runs in test/hardening/fuzz.test.ts. */
import { fuzzSuite } from '../hardening/fuzz-suite';

fuzzSuite({
  phases: 'examples,coverage,fuzzing',
  examplesPerOperation: 40,
  minRequests: 1000,
  minStatefulRequests: 100,
});
