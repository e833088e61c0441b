/** The `identity` function: `GET /me`. */
import { createApiHandler } from '../shared/http/pipeline';
import { describeKey } from './describe-key';

export const operations = { me: describeKey };

export const handler = createApiHandler({ operations });
