/**
 * Changes the upgrade guard refuses (lib/compliance/upgrade/upgrade-guard.ts) that are nevertheless
 * wanted in the next release: a table dropped on purpose, an export retired after its importer
 * moved off it. Each entry names the stack, the logical id (`*` for a removed stack) and the kind
 * of the finding it accepts, with the reason a reviewer reads, and silences exactly that one
 * finding; an entry that matches no finding is itself reported, so none outlives its change.
 *
 * Emptied when a release is recorded (`npm run upgrade-check -- --record`): every change allowed
 * here is then part of the release the next check compares against. The recorder rewrites this
 * file from the `=` of the declaration below to its end, so the declaration stays last.
 */
import type { UpgradeAllowance } from './upgrade-guard';

export const UPGRADE_ALLOWANCES: readonly UpgradeAllowance[] = [];
