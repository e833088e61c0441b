/**
 * The player site through the local front on DynamoDB Local: the page, the
 * preview (which changes nothing), the claim (cookie attributes, exactly one
 * winner of 20 concurrent submissions), the ticket and conversation for the
 * claiming browser only, the player's messages with their events, every
 * unavailable state, API keys refused there and the player cookie useless on
 * the partner API, the bridge failing (claiming, then recovered with one
 * ticket), and the player limits by IP and by join link.
 */
import { request } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureLogs } from '../support/log-capture';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { createPlayerHandler } from '../../lambdas/player/player-pipeline';
import { definition as invitationsFunction } from '../../lambdas/invitations/handler';
import { definition as playerFunction } from '../../lambdas/player/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { type Platform } from '../../lambdas/shared/platform';
import { HANDLERS } from '../../local/handlers';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { wireRequest } from '../support/raw-http';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
/** Player limits raised out of reach (shown in their own test below); the bridge can be switched off. */
let platform: Platform;
let bridgeDown = false;
/** The real player limits, on a clock fixed inside one minute so windows cannot roll over mid-test. */
let limited: Platform;
let useLimited = false;

beforeAll(async () => {
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  const player = createPlayerHandler({ ...playerFunction, platform: () => (useLimited ? limited : platform) });
  const invitations = createPartnerApiHandler({ ...invitationsFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, player, invitations } });
  platform = localPlatform({ limits: raised, localSwitches: { ticketBridgeDown: () => bridgeDown } });
  const fixed = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 20_000);
  limited = localPlatform({ clock: () => fixed });
});
afterAll(() => stack?.stop());

let serial = 0;

async function organization() {
  return createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write', 'tickets:read']);
}

/** A fresh invitation: its id, token, link and the organization's key. */
async function invitation(org?: Awaited<ReturnType<typeof organization>>, notes = 'Internal: check the alt account.') {
  const owner = org ?? (await organization());
  const response = await stack.call(`/partners/${owner.partner_id}/invitations`, {
    method: 'POST',
    headers: { ...bearer(owner.key.key), 'Content-Type': 'application/json', 'Idempotency-Key': `player-site-${(serial += 1)}-${Date.now()}` },
    body: JSON.stringify({ game: 'minecraft', notes }),
  });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { id: string; link: string } };
  const [page, fragment] = data.link.split('#');
  return { org: owner, id: data.id, link: data.link, page, token: new URLSearchParams(fragment).get('token') as string };
}

const json = { 'Content-Type': 'application/json' };
type Body = { ok: boolean; data?: any; error?: { code: string; message: string } };

async function send(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: Body | undefined;
  try {
    body = JSON.parse(text) as Body;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

const view = (page: string, headers: Record<string, string> = {}) => send(`${page}/view`, { headers });

/** GET from another loopback address (127.0.0.2): a source IP no other test of this file counted under. */
function viewFrom(localAddress: string, page: string, token: string): Promise<{ status: number; headers: Record<string, unknown>; body: Body }> {
  return new Promise((resolve, reject) => {
    const req = request(`${page}/view`, { localAddress, headers: { 'X-Join-Token': token } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body }));
    });
    req.on('error', reject);
    req.end();
  });
}
/** Any player call from another loopback address: the source IP the player limits count by. */
function callFrom(
  localAddress: string,
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: Body | undefined }> {
  return new Promise((resolve, reject) => {
    const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
    const headers = { ...(payload === undefined ? {} : json), ...init.headers };
    const req = request(url, { method: init.method ?? 'GET', localAddress, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Body | undefined;
        try {
          body = JSON.parse(text) as Body;
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
const claim = (page: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  send(`${page}/claim`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });
const message = (page: string, text: string, cookie?: string) =>
  send(`${page}/messages`, { method: 'POST', headers: { ...json, ...(cookie ? { Cookie: cookie } : {}) }, body: JSON.stringify({ text }) });
const player = { in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };

async function tableSnapshot() {
  const read = async (TableName: string) => (await stack.client.send(new ScanCommand({ TableName, ConsistentRead: true }))).Items ?? [];
  const domain = await read(stack.tables.domain);
  return JSON.stringify(domain.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`)));
}

describe('the player page and its preview', () => {
  it('serves the same static page with a strict policy, and a preview changes nothing', async () => {
    const { page, token, id } = await invitation();
    const before = await tableSnapshot();

    const html = await send(page);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'; connect-src 'self'/);
    expect(html.headers.get('cache-control')).toBe('no-store');
    expect(html.headers.get('referrer-policy')).toBe('no-referrer');
    expect(html.text).toContain('<form id="claim-form"');
    expect(html.text).not.toContain(token);

    const preview = await view(page, { 'X-Join-Token': token });
    expect(preview.status).toBe(200);
    expect(preview.body?.data).toEqual({ invitation: { id, game: 'minecraft', state: 'pending' }, access: 'link', ticket: null });
    expect(await tableSnapshot()).toBe(before);
  });

  it('answers one 404 INVITE_UNAVAILABLE for a wrong token, no token, an unknown or malformed id', async () => {
    const { page, token } = await invitation();
    const other = await invitation();
    // The page itself is served for any id: its script shows the browser that the link is not valid.
    const junkPage = await send(`${stack.baseUrl}/join/not-an-invitation`);
    expect([junkPage.status, junkPage.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    for (const [url, headers] of [
      [page, { 'X-Join-Token': other.token }],
      [page, {}],
      [page, { 'X-Join-Token': 'short' }],
      [`${stack.baseUrl}/join/00000000-0000-8000-8000-000000000000`, { 'X-Join-Token': token }],
      [`${stack.baseUrl}/join/not-an-invitation`, { 'X-Join-Token': token }],
    ] as const) {
      const answer = await view(url, headers);
      expect(answer.status, url).toBe(404);
      expect(answer.body?.error?.code).toBe('INVITE_UNAVAILABLE');
    }
  });

  it('takes no API key, and the player cookie is no key on the partner API', async () => {
    const { page, token, org } = await invitation();
    for (const answer of [await send(page, { headers: bearer(org.key.key) }), await view(page, { 'X-Join-Token': token, ...bearer(org.key.key) })]) {
      expect(answer.status).toBe(400);
      expect(answer.body?.error?.code).toBe('API_KEY_NOT_ACCEPTED');
    }
    const claimed = await claim(page, { token, ...player });
    const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
    const me = await stack.call('/me', { headers: { Cookie: cookie } });
    expect(me.status).toBe(401);
  });
});

describe('claiming through the player site', () => {
  it('claims once, sets an HttpOnly Secure SameSite=Strict cookie of at most 90 days for the invitation path, and shows the ticket to that browser only', async () => {
    const { page, token, id, org } = await invitation();
    const claimed = await claim(page, { token, in_game_name: '  Steve ', game_account_id: player.game_account_id });
    expect(claimed.status).toBe(201);
    const setCookie = claimed.headers.get('set-cookie') as string;
    const attributes = setCookie.split(';').map((part) => part.trim());
    expect(attributes[0]).toMatch(/^player_credential=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', `Path=/v1/join/${id}`]));
    const maxAge = Number(attributes.find((a) => a.startsWith('Max-Age='))?.slice('Max-Age='.length));
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(90 * 86_400);
    expect(claimed.body?.data).toMatchObject({ invitation: { id, state: 'joined' }, access: 'player', ticket: { status: 'open', messages: [] } });
    // The organization's draft notes are not the player's to read.
    expect(claimed.text).not.toContain('alt account');

    const cookie = attributes[0];
    const mine = await view(page, { Cookie: cookie });
    expect(mine.body?.data).toMatchObject({ access: 'player', ticket: { id: claimed.body?.data.ticket.id } });

    // A second browser with the same link: refused, and shown only that the link was used.
    const second = await claim(page, { token, ...player });
    expect(second.status).toBe(409);
    expect(second.body?.error).toEqual({ code: 'INVITE_UNAVAILABLE', message: 'This link has already been used.' });
    expect((await view(page, { 'X-Join-Token': token })).body?.data).toEqual({ invitation: { id, game: 'minecraft', state: 'joined' }, access: 'link', ticket: null });
    // The same browser submitting again gets its view, nothing twice.
    expect((await claim(page, { token, ...player }, { Cookie: cookie })).status).toBe(200);

    const api = await stack.call(`/partners/${org.partner_id}/invitations/${id}`, { headers: bearer(org.key.key) });
    expect(((await api.json()) as Body).data).toMatchObject({ state: 'joined', ticket_id: claimed.body?.data.ticket.id });
  });

  it('lets exactly one of 20 concurrent submissions from different browsers win', async () => {
    const { page, token, id, org } = await invitation();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(page, { token, in_game_name: `Player ${i}`, game_account_id: `acct_${i}` })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(19);
    expect(answers.filter((a) => a.headers.get('set-cookie'))).toHaveLength(1);
    const { events } = await stack.office.records!.events(org.partner_id);
    expect(events.filter((e) => e.type === 'invitation.joined' && (e.data as { invitation_id: string }).invitation_id === id)).toHaveLength(1);
    const tickets = JSON.parse(await tableSnapshot()).filter((item: { kind: string; invitation_id: string }) => item.kind === 'ticket' && item.invitation_id === id);
    expect(tickets).toHaveLength(1);
  });

  it.each([
    ['in_game_name', '', 'INVALID_FIELD'],
    ['in_game_name', 'x'.repeat(41), 'INVALID_FIELD'],
    ['in_game_name', 'tab\there', 'INVALID_FIELD'],
    ['game_account_id', 'has space', 'INVALID_FIELD'],
    ['game_account_id', 'a'.repeat(65), 'INVALID_FIELD'],
    ['nickname', 'extra', 'UNKNOWN_FIELD'],
  ])('refuses %s = %j with 422 %s and claims nothing', async (field, value, code) => {
    const { page, token } = await invitation();
    const answer = await claim(page, { token, ...player, [field]: value });
    expect(answer.status).toBe(422);
    expect(answer.body?.error?.code).toBe(code);
    expect((await view(page, { 'X-Join-Token': token })).body?.data.invitation.state).toBe('pending');
  });

  it('refuses a wrong token, a body over 4096 bytes and a non-JSON body', async () => {
    const { page, token } = await invitation();
    const other = await invitation();
    expect((await claim(page, { token: other.token, ...player })).body?.error?.code).toBe('INVITE_UNAVAILABLE');
    const large = await claim(page, { token, ...player, in_game_name: 'x'.repeat(5000) });
    expect([large.status, large.body?.error?.code]).toEqual([413, 'BODY_TOO_LARGE']);
    const text = await send(`${page}/claim`, { method: 'POST', headers: json, body: 'not json' });
    expect([text.status, text.body?.error?.code]).toEqual([400, 'INVALID_JSON']);
    expect((await view(page, { 'X-Join-Token': token })).body?.data.invitation.state).toBe('pending');
  });

  it('tells an expired and a revoked link apart, and claims neither', async () => {
    const expired = await invitation();
    await stack.office.invitations!.expireNow(expired.id);
    expect((await view(expired.page, { 'X-Join-Token': expired.token })).body?.data.invitation.state).toBe('expired');
    expect((await claim(expired.page, { token: expired.token, ...player })).body?.error).toEqual({ code: 'INVITE_UNAVAILABLE', message: 'This invitation has expired.' });

    const revoked = await invitation();
    await stack.call(`/partners/${revoked.org.partner_id}/invitations/${revoked.id}/revoke`, { method: 'POST', headers: bearer(revoked.org.key.key) });
    expect((await view(revoked.page, { 'X-Join-Token': revoked.token })).body?.data.invitation.state).toBe('revoked');
    expect((await claim(revoked.page, { token: revoked.token, ...player })).body?.error).toEqual({ code: 'INVITE_UNAVAILABLE', message: 'This invitation was withdrawn.' });
  });
});

describe("the player's ticket and messages", () => {
  it('shows staff and player messages (not notes or system entries), counts them, and writes ticket.message.created', async () => {
    const { page, token, id, org } = await invitation();
    const claimed = await claim(page, { token, ...player });
    const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];

    const added = await message(page, '  Here is my clip:\nhttps://example.com/clip  ', cookie);
    expect(added.status).toBe(201);
    await stack.office.invitations!.message(id, 'staff', 'Thanks, we are reviewing it.');
    await stack.office.invitations!.status(id, 'waiting_user');

    const seen = (await view(page, { Cookie: cookie })).body?.data;
    expect(seen.ticket.status).toBe('waiting_user');
    expect(seen.ticket.messages.map((m: { author: string; text: string }) => [m.author, m.text])).toEqual([
      ['player', 'Here is my clip:\nhttps://example.com/clip'],
      ['staff', 'Thanks, we are reviewing it.'],
    ]);
    const api = (await (await stack.call(`/partners/${org.partner_id}/tickets/${id}`, { headers: bearer(org.key.key) })).json()) as Body;
    // The API, the player's view and the events agree: the player's and staff's messages count; the organization's notes
    // (the ticket's brief) and the status change (a system entry) do not.
    expect(api.data).toMatchObject({ status: 'waiting_user', message_count: 2 });
    const { events } = await stack.office.records!.events(org.partner_id);
    expect(events.filter((e) => e.type === 'ticket.message.created' && (e.data as { invitation_id: string }).invitation_id === id)).toHaveLength(2);
  });

  it('refuses messages without the claiming browser\u2019s cookie, before the join, and outside 1–1000 characters', async () => {
    const { page, token } = await invitation();
    expect((await message(page, 'hello')).body?.error?.code).toBe('PLAYER_CREDENTIAL_REQUIRED');
    const claimed = await claim(page, { token, ...player });
    const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
    expect((await message(page, 'hello', 'player_credential=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(403);
    for (const text of ['   ', 'x'.repeat(1001), 'bell\u0007']) {
      const answer = await message(page, text, cookie);
      expect([answer.status, answer.body?.error?.code]).toEqual([422, 'INVALID_FIELD']);
    }
    expect((await message(page, 'x'.repeat(1000), cookie)).status).toBe(201);
  });
});

describe('the ticket bridge failing during a claim', () => {
  it('keeps the invitation claiming, gives the browser its cookie, and finishes with one ticket when the bridge is back', async () => {
    const { page, token, id, org } = await invitation();
    bridgeDown = true;
    try {
      const claimed = await claim(page, { token, ...player });
      expect(claimed.status).toBe(202);
      expect(claimed.body?.data).toMatchObject({ invitation: { state: 'claiming' }, access: 'player', ticket: null });
      const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
      expect((await view(page, { Cookie: cookie })).body?.data).toMatchObject({ invitation: { state: 'claiming' }, ticket: null });
      const ticketRead = await stack.call(`/partners/${org.partner_id}/tickets/${id}`, { headers: bearer(org.key.key) });
      expect(ticketRead.status).toBe(409);
      expect((await claim(page, { token, ...player })).status).toBe(409);

      bridgeDown = false;
      const recovered = (await view(page, { Cookie: cookie })).body?.data;
      expect(recovered).toMatchObject({ invitation: { state: 'joined' }, ticket: { status: 'open' } });
      await Promise.all([view(page, { Cookie: cookie }), view(page, { Cookie: cookie })]);
      const { events } = await stack.office.records!.events(org.partner_id);
      expect(events.filter((e) => e.type === 'invitation.joined' && (e.data as { invitation_id: string }).invitation_id === id)).toHaveLength(1);
    } finally {
      bridgeDown = false;
    }
  });

  it('answers 503 TICKET_SERVICE_UNAVAILABLE with Retry-After to a message while the bridge is down', async () => {
    const { page, token } = await invitation();
    const claimed = await claim(page, { token, ...player });
    const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
    bridgeDown = true;
    try {
      const answer = await message(page, 'still there?', cookie);
      expect([answer.status, answer.body?.error?.code, answer.headers.get('retry-after')]).toEqual([503, 'TICKET_SERVICE_UNAVAILABLE', '5']);
    } finally {
      bridgeDown = false;
    }
  });
});

describe('secrets stay out of reads and events', () => {
  it('never puts a link, token, notes or the player credential in an API read or an event', async () => {
    const org = await organization();
    const { page, token, id } = await invitation(org, 'Secret draft note for staff');
    const claimed = await claim(page, { token, ...player });
    const credential = (claimed.headers.get('set-cookie') as string).split(';')[0].split('=')[1];
    await message(page, 'player says hi', `player_credential=${credential}`);
    const reads: string[] = [];
    for (const path of [`/partners/${org.partner_id}/invitations`, `/partners/${org.partner_id}/invitations/${id}`, `/partners/${org.partner_id}/tickets`, `/partners/${org.partner_id}/tickets/${id}`]) {
      const response = await stack.call(path, { headers: bearer(org.key.key) });
      expect(response.status).toBe(200);
      reads.push(await response.text());
    }
    const events = JSON.stringify(await stack.office.records!.events(org.partner_id));
    for (const text of [...reads, events]) {
      for (const secret of [token, credential, 'Secret draft note', '/join/', 'player says hi']) expect(text).not.toContain(secret);
    }
  });
});

describe('player limits', () => {
  it('limits one join link to 20 calls a minute from any address, and one address to 30 player calls a minute (429 with Retry-After)', async () => {
    useLimited = true;
    try {
      const links = [await invitation(), await invitation()];
      const first = links[0];
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) statuses.push((await viewFrom(i % 2 ? '127.0.0.2' : '127.0.0.3', first.page, first.token)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      const refused = await viewFrom('127.0.0.4', first.page, first.token);
      expect(refused.status).toBe(429);
      expect(refused.body?.error?.code).toBe('RATE_LIMITED');
      expect(refused.headers['x-ratelimit-policy']).toContain('join-link-minute');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

      // One address over several links: 30 calls a minute, then 429 (the link refusal above counted nothing: compensated).
      const second = links[1];
      const more: number[] = [];
      for (let i = 0; i < 10; i += 1) more.push((await viewFrom('127.0.0.2', second.page, second.token)).status);
      const third = await invitation();
      for (let i = 0; i < 10; i += 1) more.push((await viewFrom('127.0.0.2', third.page, third.token)).status);
      expect(more.every((s) => s === 200)).toBe(true);
      const byIp = await viewFrom('127.0.0.2', third.page, third.token);
      expect(byIp.status).toBe(429);
      expect(byIp.headers['x-ratelimit-policy']).toContain('player-ip-minute');
      // Another address still gets through on that link.
      expect((await viewFrom('127.0.0.5', third.page, third.token)).status).toBe(200);
    } finally {
      useLimited = false;
    }
  });

  it("does not let calls without the link's token or the player's cookie spend the link's limits: the holder's next view, claim and message pass", async () => {
    useLimited = true;
    try {
      const target = await invitation();
      const other = await invitation();
      const bogusCookie: Record<string, string> = { Cookie: 'player_credential=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
      // Three attackers who know only the id (from the link's path, a history, a screenshot), 30 calls each: one
      // address's whole minute, more than the link's 20 calls a minute, 10 claims an hour and 20 messages an hour.
      const views: number[] = [];
      for (let i = 0; i < 30; i += 1) {
        const headers: Record<string, string> = [{}, { 'X-Join-Token': other.token }, { 'X-Join-Token': 'x'.repeat(43) }, bogusCookie][i % 4];
        views.push((await callFrom('127.0.0.21', `${target.page}/view`, { headers })).status);
      }
      const claims: number[] = [];
      for (let i = 0; i < 30; i += 1) {
        const token = [other.token, 'x'.repeat(43), 'short'][i % 3];
        claims.push((await callFrom('127.0.0.22', `${target.page}/claim`, { method: 'POST', body: { token, ...player }, headers: i % 2 ? bogusCookie : {} })).status);
      }
      const messages: number[] = [];
      for (let i = 0; i < 30; i += 1) {
        const headers: Record<string, string> = [{}, bogusCookie, { 'X-Join-Token': other.token }][i % 3];
        messages.push((await callFrom('127.0.0.23', `${target.page}/messages`, { method: 'POST', body: { text: `spam ${i}` }, headers })).status);
      }

      // The holder, from an address of its own.
      const preview = await callFrom('127.0.0.24', `${target.page}/view`, { headers: { 'X-Join-Token': target.token } });
      const claimed = await callFrom('127.0.0.24', `${target.page}/claim`, { method: 'POST', body: { token: target.token, ...player } });
      const cookie = String((claimed.headers['set-cookie'] as string[] | undefined)?.[0] ?? '').split(';')[0];
      const posted = await callFrom('127.0.0.24', `${target.page}/messages`, { method: 'POST', body: { text: 'my clip' }, headers: { Cookie: cookie } });
      const mine = await callFrom('127.0.0.24', `${target.page}/view`, { headers: { Cookie: cookie } });
      expect([preview.status, claimed.status, posted.status, mine.status]).toEqual([200, 201, 201, 200]);
      expect(mine.body?.data).toMatchObject({ access: 'player', ticket: { messages: [{ author: 'player', text: 'my clip' }] } });

      // The attackers were answered as anyone without the link is, and only their own address's limit refused them.
      expect(views).toEqual(Array(30).fill(404));
      expect(claims).toEqual(Array(30).fill(409));
      expect(messages).toEqual(Array(30).fill(403));
      for (const address of ['127.0.0.21', '127.0.0.22', '127.0.0.23']) {
        const refused = await callFrom(address, `${target.page}/view`, { headers: { 'X-Join-Token': target.token } });
        expect(refused.status, address).toBe(429);
        expect(refused.headers['x-ratelimit-policy'], address).toContain('player-ip-minute');
      }
    } finally {
      useLimited = false;
    }
  });

  it('still counts refused claims of the token’s holder: 10 an hour, invalid player data included', async () => {
    useLimited = true;
    try {
      const target = await invitation();
      const refused: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        refused.push((await callFrom('127.0.0.25', `${target.page}/claim`, { method: 'POST', body: { token: target.token, ...player, in_game_name: '' } })).status);
      }
      expect(refused).toEqual(Array(10).fill(422));
      const eleventh = await callFrom('127.0.0.26', `${target.page}/claim`, { method: 'POST', body: { token: target.token, ...player } });
      expect(eleventh.status).toBe(429);
      expect(eleventh.headers['x-ratelimit-policy']).toContain('join-claim-hour');
      // The link's view is still open to its holder: the claim rows are the claims'.
      expect((await callFrom('127.0.0.26', `${target.page}/view`, { headers: { 'X-Join-Token': target.token } })).status).toBe(200);
    } finally {
      useLimited = false;
    }
  });
});

describe('what a player call costs in DynamoDB', () => {
  it("keeps the holder's calls at their round trips and write units, and charges a call that proves nothing one IP count (and a credential-shaped cookie one read)", async () => {
    const target = await invitation();
    const logs = captureLogs();
    try {
      await view(target.page);
      await view(target.page, { Cookie: `player_credential=${'A'.repeat(43)}` });
      await message(target.page, 'hi');
      await view(target.page, { 'X-Join-Token': target.token });
      const claimed = await claim(target.page, { token: target.token, ...player });
      const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
      await message(target.page, 'hi', cookie);
      await view(target.page, { Cookie: cookie });
    } finally {
      vi.restoreAllMocks();
    }
    const costs = logs
      .lines()
      .filter((line) => line.message === 'request' && String(line.route).startsWith('player-'))
      .map((line) => ({ route: line.route, status: line.status, ...(line.dynamo as { round_trips: number; wcu: number }) }))
      .map(({ route, status, round_trips, wcu }) => [route, status, round_trips, wcu]);
    expect(costs).toEqual([
      // Proving nothing: the IP's counter only (before: the IP's and the link's, then the invitation's read).
      ['player-view', 404, 1, 1],
      ['player-view', 404, 2, 1],
      ['player-message', 403, 1, 1],
      // The holder: a token's view and claim read the invitation beside the limits' writes (one round trip less);
      // the credential's read comes before the limits' round trip (the possession check needs it).
      ['player-view', 200, 1, 2],
      // The claim: one transaction after the limits' round trip (issue 34: pending → joined with the ticket and the event);
      // the link's claim window counted for the first time on an item the view counted on guesses a new window (a reset).
      ['player-claim', 201, 2, 8],
      // The claiming browser (issue 34): the credential's read, then the limits with the ticket and its conversation
      // read beside them; a message adds its transaction and answers from that read with the new entry.
      ['player-message', 201, 3, 4],
      ['player-view', 200, 2, 2],
    ]);
  });
});

describe('two player cookies (one planted by another host of the domain)', () => {
  // A sibling host under a shared parent domain can set `player_credential` with `Domain=<parent>` and a longer
  // `Path` (`/v1/join/<id>/messages`), which the browser sends ahead of the player's own: such a call is refused.
  async function storeSnapshot() {
    const read = async (TableName: string) => (await stack.client.send(new ScanCommand({ TableName, ConsistentRead: true }))).Items ?? [];
    const items = [...(await read(stack.tables.domain)), ...(await read(stack.tables.access))];
    return JSON.stringify(items.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`)));
  }

  it('refuses view, claim and message carrying two player_credential cookies (one Cookie header or two), writes nothing, and the player’s own cookie alone still works', async () => {
    const victim = await invitation();
    const own = ((await claim(victim.page, { token: victim.token, ...player })).headers.get('set-cookie') as string).split(';')[0];
    // The attacker's cookie is a real credential, of an invitation the attacker claimed.
    const other = await invitation();
    const planted = ((await claim(other.page, { token: other.token, ...player })).headers.get('set-cookie') as string).split(';')[0];
    const target = new URL(victim.page).pathname;
    const before = await storeSnapshot();
    const cases: { method: string; path: string; body?: string }[] = [
      { method: 'GET', path: '/view' },
      { method: 'POST', path: '/messages', body: JSON.stringify({ text: 'my account details' }) },
      { method: 'POST', path: '/claim', body: JSON.stringify({ token: victim.token, ...player }) },
    ];
    for (const { method, path, body } of cases) {
      const common: [string, string][] = body ? [['Content-Type', 'application/json']] : [];
      const oneHeader = await wireRequest(stack.baseUrl, { method, target: `${target}${path}`, headers: [...common, ['Cookie', `${planted}; ${own}`]], body });
      const twoHeaders = await wireRequest(stack.baseUrl, { method, target: `${target}${path}`, headers: [...common, ['Cookie', own], ['Cookie', planted]], body });
      for (const answer of [oneHeader, twoHeaders]) {
        expect([method, path, answer.status, answer.json?.error?.code]).toEqual([method, path, 400, 'DUPLICATE_CREDENTIAL_COOKIE']);
        expect(answer.json?.ok).toBe(false);
        expect(answer.headers['set-cookie']).toBeUndefined();
      }
    }
    // With the link's token too, or two copies of the player's own value: refused the same way.
    const withToken = await view(victim.page, { 'X-Join-Token': victim.token, Cookie: `${own}; ${planted}` });
    expect([withToken.status, withToken.body?.error?.code]).toEqual([400, 'DUPLICATE_CREDENTIAL_COOKIE']);
    const copies = await view(victim.page, { Cookie: `${own}; a=b; ${own}` });
    expect([copies.status, copies.body?.error?.code]).toEqual([400, 'DUPLICATE_CREDENTIAL_COOKIE']);
    expect(await storeSnapshot()).toBe(before);

    // The player's own cookie alone: the ticket, and the message goes on it.
    expect((await view(victim.page, { Cookie: own })).body?.data).toMatchObject({ access: 'player', invitation: { id: victim.id } });
    expect((await message(victim.page, 'hello', own)).status).toBe(201);
  });
});
