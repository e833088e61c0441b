/**
 * The admin CLI as operators run it: the bundle scripts/build-admin.ts builds, run by node in a process of its own,
 * on tables of its own in the run's DynamoDB Local (a working folder whose .local/stack.json names them, as
 * `npm start` writes it). A batch answers line by line in order and exits 1 when a line failed; a single command
 * answers as it always did; a bundle whose sources changed is rebuilt before its command runs.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoClient } from '../../local/dynamo-local';
import { LOCAL_STATE_FILE } from '../../local/state-file';
import { createTables, localTableNames } from '../../local/tables';
import { changedInputs, INPUTS_FILE, readInputs, type BundleInputs } from '../../scripts/admin-freshness';
import { buildAdmin } from '../../scripts/build-admin';

const root = join(__dirname, '..', '..');
let workDir: string;
let bundleDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'partner-api-admin-'));
  bundleDir = join(workDir, 'bundle');
  await buildAdmin(root, bundleDir);
  const endpoint = inject('dynamoEndpoint');
  const tables = localTableNames(`admin-${randomBytes(4).toString('hex')}`);
  const client = localDynamoClient(endpoint);
  await createTables(client, tables);
  client.destroy();
  mkdirSync(join(workDir, '.local'));
  writeFileSync(join(workDir, LOCAL_STATE_FILE), JSON.stringify({ dynamoEndpoint: endpoint, tables }));
});

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** `node <bundle>/admin.mjs …` in the working folder, `input` on its standard input. */
function admin(args: string[], input = ''): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const cli = spawn(process.execPath, [join(bundleDir, 'admin.mjs'), ...args], { cwd: workDir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    cli.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    cli.once('error', reject);
    cli.once('close', (status) => resolve({ status, stdout, stderr }));
    cli.stdin.end(input);
  });
}

const unique = (tag: string) => `${tag}-${randomBytes(6).toString('hex')}`;
const jsonLines = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the admin CLI bundle', () => {
  it('runs a batch: one answer a line, in order, a failing line answered and the rest run, exit 1', async () => {
    // Prepare
    const [first, second] = [unique('batch-first'), unique('batch-second')];
    const batch = [
      ['org', 'create', '--name', 'First', '--request-id', first],
      ['org', 'archive', '--org', 'org_00000000000000000000'],
      ['org', 'create', '--name', 'Second', '--request-id', second],
    ].map((line) => JSON.stringify(line));
    const file = join(workDir, 'seed.jsonl');
    writeFileSync(file, `${batch.join('\n')}\n`);

    // Act
    const run = await admin(['--batch', file]);
    const again = await admin(['org', 'create', '--name', 'First', '--request-id', first]);

    // Assess
    const answers = jsonLines(run.stdout);
    expect(answers.map(({ line, status }) => [line, status])).toEqual([
      [1, 0],
      [2, 1],
      [3, 0],
    ]);
    expect(answers[0]).toMatchObject({ result: { partner_id: expect.stringMatching(/^org_/) }, request_id: first });
    expect(answers[1]).toMatchObject({ error: { code: 'ORG_NOT_FOUND' } });
    expect(answers[2]).toMatchObject({ result: { partner_id: expect.stringMatching(/^org_/) }, request_id: second });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('');
    // The first line's organization was made: its request id answers it again.
    expect(JSON.parse(again.stdout)).toEqual({ partner_id: (answers[0].result as { partner_id: string }).partner_id, replayed: true });
  });

  it('reads a batch from standard input with `--batch -`, and exits 0 when every line succeeded', async () => {
    // Act
    const run = await admin(['--batch', '-'], `${JSON.stringify(['org', 'create', '--name', 'Piped'])}\n${JSON.stringify(['ticket', 'bridge', '--fail', 'off'])}\n`);

    // Assess
    expect(jsonLines(run.stdout)).toEqual([
      { line: 1, status: 0, result: { partner_id: expect.stringMatching(/^org_/) }, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      { line: 2, status: 0, result: { ticket_bridge: 'available' } },
    ]);
    expect(run.status).toBe(0);
  });

  it('refuses a command or a command’s flag beside --batch, answering no line', async () => {
    // Act
    const run = await admin(['--batch', '-', 'org', 'create', '--request-id', unique('beside')], `${JSON.stringify(['org', 'create'])}\n`);

    // Assess
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/^--batch takes its commands from the file.*\(not org create --request-id\)/) });
  });

  it('runs a single command as before: its JSON on stdout, the request id it made on stderr; a usage error exits 2', async () => {
    // Act
    const created = await admin(['org', 'create', '--name', 'Single']);
    const refused = await admin(['org', 'archive']);
    const help = await admin(['--help']);

    // Assess
    expect(created.status).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ partner_id: expect.stringMatching(/^org_/) });
    expect(created.stderr).toMatch(/^Request id [0-9a-f-]{36}: to run this command again safely, add --request-id [0-9a-f-]{36}\n$/);
    expect(refused.status).toBe(2);
    expect(JSON.parse(refused.stderr)).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/^--org is required\nUsage:/) });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run -s admin -- <group> <verb>/);
  });

  it('rebuilds a bundle whose sources changed since it was built, then runs the command', async () => {
    // Prepare: the bundle records another content for one of its sources, as if that file had changed since.
    const inputsFile = join(bundleDir, INPUTS_FILE);
    const inputs = JSON.parse(readFileSync(inputsFile, 'utf8')) as BundleInputs;
    const source = 'scripts/admin-cli.ts';
    writeFileSync(inputsFile, JSON.stringify({ ...inputs, files: { ...inputs.files, [source]: { ...inputs.files[source], mtimeMs: 0, sha256: '0'.repeat(64) } } }));

    // Act
    const run = await admin(['--help']);

    // Assess
    expect(run.stderr).toMatch(/^admin CLI: \S+ (and \d+ more )?changed since the bundle was built: rebuilding it/);
    expect(run.stdout).toMatch(/^Usage: npm run -s admin --/);
    expect(run.status).toBe(0);
    expect(changedInputs(inputsFile, readInputs(inputsFile) as BundleInputs)).toEqual([]);
  });
});
