/** The request path's fault sweep (test/support/request-path-sweep.ts) over its account shard. */
import { sweepRoutes } from '../support/request-path-sweep';

sweepRoutes('account');
