/**
 * What a newcomer does first: `npm start`, then curl /health and /me with the
 * printed key, and the admin CLI against the running stack. Runs the real
 * entry point in a child process, as `npm start` does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamo-local';
import { buildAdmin } from '../../scripts/build-admin';
import { startCommand } from '../support/processes/start-command';

const root = join(__dirname, '..', '..');
let child: ChildProcess;
let output = '';
let workDir: string;

beforeAll(async () => {
  // Own working directory, so the stack's state file does not clash with a developer's running `npm start`.
  workDir = mkdtempSync(join(tmpdir(), 'partner-api-start-'));
  // The admin CLI as `npm run admin` runs it: the bundle (scripts/build-admin.ts), here a copy of its own.
  await buildAdmin(root, join(workDir, 'admin'));
  const port = await freePort();
  const [node, args] = startCommand();
  child = spawn(node, args, { cwd: workDir, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const started = Date.now();
  while (!output.includes('Try:')) {
    // A generous bound: on a busy machine the JVM and the seed can take minutes.
    if (Date.now() - started > 180_000 || child.exitCode !== null) throw new Error(`npm start did not become ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 200_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(workDir, { recursive: true, force: true });
});

const printed = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(output)?.[1] ?? '';

/**
 * The admin CLI, run without blocking this process: a blocked event loop would keep undici from retiring its idle
 * connections, and the next fetch would reuse one the front has closed meanwhile (keep-alive 5 s).
 */
function admin(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const cli = spawn(process.execPath, [join(workDir, 'admin', 'admin.mjs'), ...args], { cwd: workDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    cli.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    cli.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    cli.once('error', reject);
    cli.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('npm start', () => {
  it('prints the base URL and demo keys, and serves /health and /me', async () => {
    const baseUrl = printed('base URL');
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const health = await fetch(`${baseUrl}/health`);
    expect(await health.json()).toMatchObject({ ok: true, data: { status: 'ok', version: 'v1' } });

    for (const [label, partnerId] of [['org key', printed('organization')], ['personal key', undefined]] as const) {
      const response = await fetch(`${baseUrl}/me`, { headers: { Authorization: `Bearer ${printed(label)}` } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { partner_id?: string; account_id: string } };
      expect(body.data.partner_id).toBe(partnerId);
      expect(body.data.account_id).toBe(printed('manager account'));
    }
  });

  it('prints a join link whose player page works, and `ticket bridge --fail` switches the running stack\'s ticket store', async () => {
    const link = /(http:\/\/127\.0\.0\.1:\d+\/v1\/join\/[0-9a-f-]+)#token=([A-Za-z0-9_-]+)/.exec(output);
    expect(link).not.toBeNull();
    const [, page, token] = link as RegExpExecArray;
    const html = await fetch(page);
    expect([html.status, html.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const view = await fetch(`${page}/view`, { headers: { 'X-Join-Token': token } });
    expect(((await view.json()) as { data: { invitation: { state: string } } }).data.invitation.state).toBe('pending');

    expect(JSON.parse((await admin('ticket', 'bridge', '--fail', 'on')).stdout)).toEqual({ ticket_bridge: 'failing' });
    const claim = await fetch(`${page}/claim`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, in_game_name: 'Newcomer', game_account_id: 'newcomer_1' }),
    });
    expect(claim.status).toBe(202);
    const cookie = (claim.headers.get('set-cookie') as string).split(';')[0];
    expect((await admin('ticket', 'bridge', '--fail', 'on', '--stage', 'prod')).status).not.toBe(0);
    expect(JSON.parse((await admin('ticket', 'bridge', '--fail', 'off')).stdout)).toEqual({ ticket_bridge: 'available' });
    const recovered = await fetch(`${page}/view`, { headers: { Cookie: cookie } });
    expect(((await recovered.json()) as { data: { invitation: { state: string }; ticket: { status: string } } }).data).toMatchObject({
      invitation: { state: 'joined' },
      ticket: { status: 'open' },
    });
  }, 120_000);

  it('prints the web settings address and a sign-in that works there', async () => {
    const settings = /(http:\/\/127\.0\.0\.1:\d+\/v1\/settings)\n\s+sign in as (\S+) \/ (\S+)/.exec(output);
    expect(settings).not.toBeNull();
    const [, page, email, password] = settings as RegExpExecArray;
    const html = await fetch(page);
    expect([html.status, html.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const signIn = await fetch(`${page}/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: new URL(page).origin, 'X-Settings-Request': '1' },
      body: JSON.stringify({ email, password }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') as string).split(';')[0];
    const keys = (await (await fetch(`${page}/api/keys`, { headers: { Cookie: cookie } })).json()) as { keys: { status: string }[] };
    expect(keys.keys.map((k) => k.status)).toEqual(['active', 'active']);
  });

  it('lets the admin CLI manage the running stack: JSON on stdout, {code,message} on stderr and a non-zero exit on failure', async () => {
    const created = await admin('account', 'create', '--name', 'CLI');
    expect(created.status).toBe(0);
    const { account_id } = JSON.parse(created.stdout) as { account_id: string };
    const key = await admin('key', 'create', '--account', account_id, '--scopes', 'public:read', '--permanent');
    expect(key.status).toBe(0);
    const made = JSON.parse(key.stdout) as { key: string; key_id: string; expires_at: null };
    expect(made.expires_at).toBeNull();
    expect((await fetch(`${printed('base URL')}/me`, { headers: { Authorization: `Bearer ${made.key}` } })).status).toBe(200);

    const listed = await admin('key', 'list', '--account', account_id);
    expect(listed.stdout).not.toContain(made.key);
    expect(JSON.parse(listed.stdout)).toMatchObject({ keys: [{ key_id: made.key_id, status: 'active' }] });

    const refused = await admin('key', 'create', '--account', account_id, '--scopes', 'records:read');
    expect(refused.status).not.toBe(0);
    expect(refused.stdout).toBe('');
    // The request id it made comes first (to run the command again safely), the failure last.
    const lines = refused.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^Request id [0-9a-f-]{36}: to run this command again safely, add --request-id [0-9a-f-]{36}$/);
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ code: 'INVALID_SCOPES' });
  }, 120_000);

  // Last: the burst spends this address's edge budgets. (With `--no-edge`: test/integration/local-start-process.test.ts.)
  it('applies the edge limits: a burst from one client is refused by the edge before any quota', async () => {
    // 45 at once: more than edge-credential-burst (20 per 10 s) and edge-ip-burst (30) allow, even across two windows.
    const responses = await Promise.all(
      Array.from({ length: 45 }, () => fetch(`${printed('base URL')}/me`, { headers: { Authorization: `Bearer ${printed('personal key')}` } })),
    );
    const limited = responses.filter((response) => response.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(5);
    for (const response of limited) expect(response.headers.get('x-ratelimit-policy')).toMatch(/^edge-/);
    expect(output).not.toContain('edge limits     OFF');
  });
});
