/** The full step fuzz (slow set): 200 sequences of arbitrary steps. The small size runs in test/sandbox/step-fuzz.test.ts. */
import { stepFuzzSuite } from '../sandbox/step-fuzz-suite';

stepFuzzSuite({ runs: 200 });
