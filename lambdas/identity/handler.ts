/** The `identity` function: `GET /me`. */
import { createPartnerApiHandler } from '../shared/http/partner-api-pipeline';
import { describeKey } from './describe-key';
import { IDENTITY_CONTRACTS } from './identity-contracts';

export const operations = { me: describeKey };

export const definition = { operations, contracts: IDENTITY_CONTRACTS };

export const handler = createPartnerApiHandler(definition);
