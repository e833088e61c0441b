/**
 * Every function's handler, built on a given platform: each group's definition (its handler.ts) behind its
 * front door's composition. For what runs the whole service in one process (the local stack, the bench, tests);
 * a deployed function's bundle starts from its own handler.ts and carries nothing of the other groups.
 */
import { definition as entitlements } from '../entitlements/handler';
import { definition as identity } from '../identity/handler';
import { definition as invitations } from '../invitations/handler';
import { definition as player } from '../player/handler';
import { createPlayerHandler } from '../player/player-pipeline';
import { definition as records } from '../records/handler';
import { definition as settings } from '../settings/handler';
import { definition as signIn } from '../sign-in/handler';
import { createSettingsHandler } from '../settings/settings-pipeline';
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import type { ApiHandler } from '../shared/http/pipeline';
import type { EndpointGroup } from '../shared/http/routes';
import type { Platform } from '../shared/platform';
import { createSystemHandler, definition as system } from '../system/handler';
import { definition as tickets } from '../tickets/handler';
import { definition as webhooks } from '../webhooks/handler';

/** A group's handler on `platform` (default: the deployed one, from the environment). */
export const FUNCTION_BUILDERS: Readonly<Record<EndpointGroup, (platform?: () => Platform) => ApiHandler>> = {
  system: (platform) => createSystemHandler({ ...system, platform }),
  identity: (platform) => createPartnerApiHandler({ ...identity, platform }),
  records: (platform) => createPartnerApiHandler({ ...records, platform }),
  entitlements: (platform) => createPartnerApiHandler({ ...entitlements, platform }),
  invitations: (platform) => createPartnerApiHandler({ ...invitations, platform }),
  tickets: (platform) => createPartnerApiHandler({ ...tickets, platform }),
  player: (platform) => createPlayerHandler({ ...player, platform }),
  settings: (platform) => createSettingsHandler({ ...settings, platform }),
  'sign-in': (platform) => createSettingsHandler({ ...signIn, platform }),
  webhooks: (platform) => createSettingsHandler({ ...webhooks, platform }),
};
