/**
 * `ticket bridge --fail on|off` (the admin CLI, local stack only): makes the
 * running `npm start`'s ticket bridge unavailable, to try the 503
 * TICKET_SERVICE_UNAVAILABLE answers and a claim left `claiming` that the
 * reconciler (or the player's page) finishes once the bridge is back.
 *
 * The switch is a file in the local stack's state folder, read on each
 * bridge call by the switches `npm start` gives its platform and its
 * reconciler (local-stack.ts `switches`). A deployed function is built
 * without switches (lambdas/shared/platform.ts): nothing there reads this
 * file, and no setting can make it.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalSwitches } from '../lambdas/shared/platform';
import { LOCAL_STATE_DIR } from './state-file';

export const TICKET_BRIDGE_SWITCH = join(LOCAL_STATE_DIR, 'ticket-bridge-down');

/** The switches of a local stack started by `npm start`: the file's presence. */
export function fileSwitches(file = TICKET_BRIDGE_SWITCH): LocalSwitches {
  return { ticketBridgeDown: () => existsSync(file) };
}

/** Turn the local bridge off (`on` = fail) or back on. */
export function setTicketBridgeFailing(failing: boolean, file = TICKET_BRIDGE_SWITCH): { ticket_bridge: 'failing' | 'available' } {
  if (failing) {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `${new Date().toISOString()}\n`);
  } else {
    rmSync(file, { force: true });
  }
  return { ticket_bridge: failing ? 'failing' : 'available' };
}
