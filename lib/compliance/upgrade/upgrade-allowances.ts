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

/**
 * Issue 21, finding 8: the functions' execution roles that the stateful stack's key and secret policies name get
 * deterministic names (lib/config/service-roles.ts). Naming a role replaces it: CloudFormation creates the named role,
 * points the function at it and deletes the generated one. Nothing finds these roles by their old generated names.
 */
const ROLE_NAMED = 'Execution role named partner-api-<stage>-<function> so that the webhook secrets key policy and the secrets\' resource policies can name it (issue 21, finding 8); replacing a role is safe, nothing refers to its generated name.';

export const UPGRADE_ALLOWANCES: readonly UpgradeAllowance[] = [
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'WebApiPlayerFunctionRole5E87D6E2', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'WebApiSettingsFunctionRole93A09DAF', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'WebApiWebhooksFunctionRole66D210D4', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'ApiSystemFunctionRole88775561', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'ApiIdentityFunctionRoleD4C2675E', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'ApiRecordsFunctionRole3F9B4ABB', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'ApiEntitlementsFunctionRole3B3F67CD', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'ApiInvitationsFunctionRole5F955DCF', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'ApiTicketsFunctionRoleFAFD68A1', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-dev-Stateless', logicalId: 'WebhooksWorkerRole5EC8DF7B', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'WebApiPlayerFunctionRole5E87D6E2', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'WebApiSettingsFunctionRole93A09DAF', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'WebApiWebhooksFunctionRole66D210D4', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'ApiSystemFunctionRole88775561', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'ApiIdentityFunctionRoleD4C2675E', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'ApiRecordsFunctionRole3F9B4ABB', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'ApiEntitlementsFunctionRole3B3F67CD', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'ApiInvitationsFunctionRole5F955DCF', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'ApiTicketsFunctionRoleFAFD68A1', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-staging-Stateless', logicalId: 'WebhooksWorkerRole5EC8DF7B', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'WebApiPlayerFunctionRole5E87D6E2', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'WebApiSettingsFunctionRole93A09DAF', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'WebApiWebhooksFunctionRole66D210D4', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'ApiSystemFunctionRole88775561', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'ApiIdentityFunctionRoleD4C2675E', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'ApiRecordsFunctionRole3F9B4ABB', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'ApiEntitlementsFunctionRole3B3F67CD', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'ApiInvitationsFunctionRole5F955DCF', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'ApiTicketsFunctionRoleFAFD68A1', kind: 'replacement', reason: ROLE_NAMED },
  { stack: 'PartnerApi-prod-Stateless', logicalId: 'WebhooksWorkerRole5EC8DF7B', kind: 'replacement', reason: ROLE_NAMED },
];
