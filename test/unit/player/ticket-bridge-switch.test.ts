/** `ticket bridge --fail on|off`: a switch of the local stack only, read by the bridge on every call. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { createPlatform } from '../../../lambdas/shared/platform';
import { DynamoTicketBridge, TicketServiceUnavailable } from '../../../lambdas/tickets/ticket-bridge';
import { fileSwitches } from '../../../local/ticket-bridge-switch';
import { runLocalCommand } from '../../../scripts/admin-cli';

describe('the ticket bridge switch', () => {
  it('turns the bridge off and on through the admin CLI, and is refused for a deployed stage', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bridge-')), 'ticket-bridge-down');
    const document = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
    mockClient(document).resolves({ Item: undefined });
    const bridge = new DynamoTicketBridge(document, 'domain', fileSwitches(file).ticketBridgeDown);

    expect(runLocalCommand(['ticket', 'bridge', '--fail', 'on'], file)).toEqual({ ticket_bridge: 'failing' });
    await expect(bridge.get('tkt_1')).rejects.toBeInstanceOf(TicketServiceUnavailable);
    await expect(bridge.get('tkt_1')).rejects.toMatchObject({ code: 'TICKET_SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '5' } });
    expect(runLocalCommand(['ticket', 'bridge', '--fail', 'off'], file)).toEqual({ ticket_bridge: 'available' });
    await expect(bridge.get('tkt_1')).resolves.toBeUndefined();

    expect(() => runLocalCommand(['ticket', 'bridge', '--fail', 'on', '--stage', 'prod'], file)).toThrow(/local stack/);
    expect(() => runLocalCommand(['ticket', 'bridge', '--fail', 'maybe'], file)).toThrow(/on or off/);
    expect(runLocalCommand(['ticket', 'status', '--invitation', 'x', '--status', 'open'], file)).toBeUndefined();
  });

  it('does not exist on a platform built as a deployed function builds it', () => {
    expect(createPlatform({ tables: {} }).localSwitches).toBeUndefined();
  });
});
