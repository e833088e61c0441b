/** The request path's fault sweep (test/support/request-path-sweep.ts) over its partner shard. */
import { sweepRoutes } from '../support/request-path-sweep';

sweepRoutes('partner');
