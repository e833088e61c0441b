/** @partner-api/client: the partner API v1, typed from its OpenAPI document, and its signed webhooks. */
export { createPartnerClient, type PartnerClient, type PartnerClientOptions, type Answer, type CreatedInvitationAnswer } from './client.js';
export type { RecordFilters, NewInvitation } from './client.js';
/** Every model the API answers (PartnerRecord, Invitation, Ticket, Entitlements, …), generated from its document. */
export type * from './models.generated.js';
export { PartnerApiError, type RateLimitInfo } from './errors.js';
export { createTransport, isRetryable, type TransportOptions } from './transport.js';
export {
  BUSINESS_EVENT_TYPES,
  answerVerification,
  createWebhookHandler,
  createWebhookProcessor,
  fileDeduplicator,
  verifyWebhook,
  type BusinessEvent,
  type BusinessEventType,
  type VerifyOptions,
  type VerifyResult,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from './webhooks.js';
