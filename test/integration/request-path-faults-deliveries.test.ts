/** The request path's fault sweep (test/support/request-path-sweep.ts) over its deliveries shard. */
import { sweepRoutes } from '../support/request-path-sweep';

sweepRoutes('deliveries');
