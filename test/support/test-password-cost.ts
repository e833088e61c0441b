/**
 * Setup of the service tests: passwords hash at the test-only cost (lambdas/back-office/passwords.ts),
 * so a sign-in costs a millisecond of CPU instead of half a second on a loaded 2-core machine. The
 * production cost is asserted on its own (test/unit/back-office/passwords.test.ts).
 */
import { usePasswordCostForTests } from '../../lambdas/back-office/passwords';

usePasswordCostForTests();
