/** The step fuzz at a small size (in `npm test`): 20 sequences of arbitrary steps. The slow set runs 200 (test/slow/step-fuzz.test.ts). */
import { stepFuzzSuite } from './step-fuzz-suite';

stepFuzzSuite({ runs: 20 });
