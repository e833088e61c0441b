/**
 * Every test file starts with the service's log and metric writer loaded (lambdas/shared/observability/output.ts), as a
 * warm function has it: a test that calls code which logs and reads the line right after sees it written, as before the
 * writer was deferred. The deferred writes themselves are tested on their own (test/unit/observability/deferred-output.test.ts).
 */
import { serviceOutput } from '../../lambdas/shared/observability/output';

await serviceOutput.written();
