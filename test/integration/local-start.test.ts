/**
 * What a newcomer does first: `npm start`, then curl /health and /me with the
 * printed key, and the admin CLI against the running stack. Runs the real
 * entry point in a child process, as `npm start` does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamo-local';

const root = join(__dirname, '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
let child: ChildProcess;
let output = '';
let workDir: string;

beforeAll(async () => {
  // Own working directory, so the stack's state file does not clash with a developer's running `npm start`.
  workDir = mkdtempSync(join(tmpdir(), 'partner-api-start-'));
  const port = await freePort();
  child = spawn(tsx, [join(root, 'local', 'start.ts')], { cwd: workDir, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const started = Date.now();
  while (!output.includes('Try:')) {
    if (Date.now() - started > 60_000 || child.exitCode !== null) throw new Error(`npm start did not become ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 70_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(workDir, { recursive: true, force: true });
});

const printed = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(output)?.[1] ?? '';

function admin(...args: string[]) {
  const result = spawnSync(tsx, [join(root, 'scripts', 'admin.ts'), ...args], { cwd: workDir, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
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

  it('lets the admin CLI manage the running stack: JSON on stdout, {code,message} on stderr and a non-zero exit on failure', async () => {
    const created = admin('account', 'create', '--name', 'CLI');
    expect(created.status).toBe(0);
    const { account_id } = JSON.parse(created.stdout) as { account_id: string };
    const key = admin('key', 'create', '--account', account_id, '--scopes', 'public:read', '--permanent');
    expect(key.status).toBe(0);
    const made = JSON.parse(key.stdout) as { key: string; key_id: string; expires_at: null };
    expect(made.expires_at).toBeNull();
    expect((await fetch(`${printed('base URL')}/me`, { headers: { Authorization: `Bearer ${made.key}` } })).status).toBe(200);

    const listed = admin('key', 'list', '--account', account_id);
    expect(listed.stdout).not.toContain(made.key);
    expect(JSON.parse(listed.stdout)).toMatchObject({ keys: [{ key_id: made.key_id, status: 'active' }] });

    const refused = admin('key', 'create', '--account', account_id, '--scopes', 'records:read');
    expect(refused.status).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(JSON.parse(refused.stderr)).toMatchObject({ code: 'INVALID_SCOPES' });
  }, 30_000);
});
