/**
 * A platform of its own for a test (its limits, its clock, its switches) on what the local stack gave the shared one:
 * the handlers' DynamoDB client (LOCAL_HANDLER_DYNAMO_CONFIG: an attempt may take 3 s, as DynamoDB Local on a loaded
 * 2-core machine can; fault-injection tests wrap it) and the local switches (the sealer, the longer bound of
 * compensations and lease releases). A platform built with createPlatform's defaults has the deployed client instead:
 * 1 s an attempt, so on a loaded machine an admission write can be applied, time out and be sent again after another
 * request wrote the item, and count twice (docs/limits.md); limit tests then see more 429s than the limit implies.
 * Call it after the stack started (in a test or hook, or lazily from a handler's platform()).
 */
import { createPlatform, sharedPlatform, type LocalSwitches, type Platform } from '../../lambdas/shared/platform';

export function localPlatform(overrides: Partial<Omit<Platform, 'localSwitches'>> & { readonly localSwitches?: Partial<LocalSwitches> } = {}): Platform {
  const shared = sharedPlatform();
  const { localSwitches, ...rest } = overrides;
  return createPlatform({
    edgeGuard: undefined,
    documentClient: shared.documentClient,
    ...rest,
    localSwitches: { ...(shared.localSwitches as LocalSwitches), ...localSwitches },
  });
}
