/**
 * What each row of the limits table (limits-table.ts) is, in words: docs/limits-table.md's "scope" column
 * (scripts/limits-doc.ts). Apart from the rows because no function reads them: the table is in every function's cold
 * start, these words in none. One entry per row, keyed by its policy and holder (an edge row: its policy), so that a
 * row without its words, or words without a row, does not compile.
 */
import type { Limit, LimitRow } from './limits-table';

type KeyOf<L> = L extends { readonly policy: infer P extends string; readonly holder: infer H extends string } ? `${P}/${H}` : L extends { readonly policy: infer P extends string } ? P : never;

/** A row's key in LIMIT_DESCRIPTIONS. */
export type LimitKey = KeyOf<LimitRow>;

export const limitKey = (limit: Limit): string => (limit.kind === 'edge' ? limit.policy : `${limit.policy}/${limit.holder}`);

export const LIMIT_DESCRIPTIONS: Readonly<Record<LimitKey, string>> = {
  'key-minute/key': 'each valid API key, per minute',
  'key-day/key': 'each valid API key, per UTC day',
  'account-minute/account': 'all keys of one creating account, per minute',
  'account-day/account': 'all keys of one creating account, per UTC day',
  'organization-minute/organization': 'all keys of one organization (any creator), per minute',
  'organization-day/organization': 'all keys of one organization (any creator), per UTC day',
  'invitation-minute/organization': 'invitation creation per organization (retries and replays included), per minute',
  'invitation-hour/organization': 'invitation creation per organization, per UTC hour',
  'invitation-day/organization': 'invitation creation per organization, per UTC day',
  'ticket-minute/organization': 'invitation and ticket endpoints together per organization (link retrieval and revoke included), per minute',
  'ticket-concurrency/key': 'invitation and ticket requests in flight per key',
  'ticket-concurrency/organization': 'invitation and ticket requests in flight per organization',
  'ticket-concurrency/account': 'invitation and ticket requests in flight per account',
  'player-ip-minute/player-ip': 'player site calls (view, claim, message) by source IP, per minute, whether or not they prove they hold the link',
  'player-ip-hour/player-ip': 'player site calls by source IP, per UTC hour',
  'join-link-minute/join-link': "player site calls of one join link from any IP that prove they hold it (the link's token, or the player's cookie), per minute",
  'join-claim-hour/join-link': "claim submissions with the link's token (refused ones included), per UTC hour",
  'join-message-hour/join-link': "the player's messages on one ticket (with the player's cookie), per UTC hour",
  'join-message-day/join-link': "the player's messages on one ticket (with the player's cookie), per UTC day",
  'settings-view-minute/settings-account': 'web settings: viewing API settings (session, organizations, keys, audit), per account, per minute',
  'settings-change-minute/settings-account': 'web settings: configuration changes (key and webhook creation, two-factor enrol and disable), per account, per minute, counted once the password (and code) re-check passed',
  'settings-change-hour/settings-account': 'web settings: configuration changes, per account, per UTC hour',
  'settings-change-day/settings-account': 'web settings: configuration changes, per account, per UTC day',
  'settings-session-change-minute/settings-session': 'web settings: changes that re-check the password, and the remedies (password change, two-factor confirm, sign out everywhere), per session, per minute, counted before the check: a session, stolen or not, spends only its own',
  'settings-revoke-minute/settings-account': 'web settings: revoking a key or deactivating a webhook callback (separate: not blocked by the change quotas), per account, per minute',
  'settings-key-create-hour/settings-account': 'web settings: creating API keys (also configuration changes), per account, per UTC hour',
  'settings-key-create-day/settings-account': 'web settings: creating API keys, per account, per UTC day',
  'webhook-create-hour/settings-account': 'web settings: creating webhook callbacks (also configuration changes), per account, per UTC hour',
  'webhook-create-day/settings-account': 'web settings: creating webhook callbacks, per account, per UTC day',
  'webhook-check-callback-minute/webhook': 'verifying or testing a webhook callback, per callback, per minute',
  'webhook-check-minute/settings-account': 'verifying or testing webhook callbacks, per account, per minute',
  'webhook-check-hour/settings-account': 'verifying or testing webhook callbacks, per account, per UTC hour',
  'webhook-check-organization-hour/webhook-organization': "verifying or testing webhook callbacks, all of an organization's, per UTC hour",
  'webhook-resend-callback-minute/webhook': 'manual resends of webhook deliveries, per callback, per minute',
  'webhook-resend-hour/settings-account': 'manual resends of webhook deliveries, per account, per UTC hour',
  'webhook-resend-organization-hour/webhook-organization': "manual resends of webhook deliveries, all of an organization's callbacks, per UTC hour",
  'webhook-resend-delivery-day/webhook-delivery-record': 'manual resends of one webhook delivery, per UTC day',
  'webhook-delivery-starts-minute/webhook-delivery': 'delivery attempts started per webhook callback in any 60 seconds (the delivery pipeline)',
  'webhook-delivery-concurrency/webhook-delivery': 'delivery attempts in flight per webhook callback (the delivery pipeline)',
  'sign-in-email-minute/sign-in-email': 'sign-in attempts for one e-mail address (known or not) from browsers without a device cookie for it, per minute',
  'sign-in-email-hour/sign-in-email': 'sign-in attempts for one e-mail address from browsers without a device cookie for it, per UTC hour',
  'sign-in-device-minute/sign-in-device': 'sign-in attempts from a browser with a valid device cookie for the address typed (it signed in to it before), per device, per minute, instead of the address rows',
  'sign-in-device-hour/sign-in-device': 'sign-in attempts from a browser with a valid device cookie for the address typed, per device, per UTC hour',
  'sign-in-ip-minute/sign-in-ip': 'sign-in attempts from one source IP, per minute',
  'sign-in-ip-hour/sign-in-ip': 'sign-in attempts from one source IP, per UTC hour',
  'edge-ip-burst': 'by source IP (health included), per 10 seconds',
  'edge-ip-minute': 'by source IP (health included), per minute',
  'edge-credential-burst': 'by credential (well-formed unknown credentials included), per 10 seconds',
  'edge-credential-minute': 'by credential (well-formed unknown credentials included), per minute',
  'edge-authentication-minute': 'authentication floods: requests with a malformed credential per edge location (per Region for a regional web ACL), per minute; never blocks a well-formed key (docs/limits.md)',
  'web-ip-burst': 'web side (player site, web settings: sessions and audit reads included) by source IP, per 10 seconds',
  'web-ip-minute': 'web side by source IP, per minute',
};
