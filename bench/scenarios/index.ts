/**
 * The scenarios `npm run bench` runs, in order. The baseline a scenario
 * compares with runs before it; bundling runs last, so its CPU-heavy work
 * cannot disturb the latency runs, and the password hash just before it, when
 * nothing else of the run is busy. The admin CLI's processes run after the
 * latency runs too.
 */
import type { RegisteredScenario } from '../scenario';
import { adminCli } from './admin-cli';
import { bundles } from './bundles';
import { clientGetMe } from './client-me';
import { dynamoGetItem } from './dynamo-get-item';
import { dynamoUpdateItem } from './dynamo-update-item';
import { endpointCosts } from './endpoint-costs';
import { entitlementSummary } from './entitlement-summary';
import { getMe, getMePersonalKey } from './get-me';
import { getMeReplay } from './get-me-replay';
import { hotOrganization } from './hot-organization';
import { httpPath } from './http-path';
import { invitationClaim } from './invitation-claim';
import { invitationCreate } from './invitation-create';
import { invitationPeers } from './invitation-peers';
import { passwordHash } from './password-hash';
import { quotaPeers } from './quota-peers';
import { recordList } from './record-list';
import { recordLookup } from './record-lookup';
import { settingsLoad } from './settings-load';
import { settingsView } from './settings-view';
import { webhookDelivery } from './webhook-delivery';

export const SCENARIOS: readonly RegisteredScenario[] = [dynamoGetItem, dynamoUpdateItem, getMeReplay, getMe, getMePersonalKey, httpPath, clientGetMe, recordLookup, entitlementSummary, recordList, invitationCreate, invitationPeers, quotaPeers, invitationClaim, settingsView, endpointCosts, webhookDelivery, hotOrganization, settingsLoad, adminCli, passwordHash, bundles];
