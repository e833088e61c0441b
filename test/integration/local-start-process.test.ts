/**
 * `npm start` as a process (the real entry, run by Node with tsx's loader as `npm start` runs it,
 * each in its own working directory, on free ports):
 * - however it ends — Ctrl-C, SIGTERM, SIGHUP, an uncaught exception or
 *   unhandled rejection, SIGKILL of the stack's own process or of its
 *   launcher, a port taken, saved demo keys that do not load — no process of
 *   its DynamoDB Local (the watchdog and Java, found by their `-port`) is left;
 * - `--no-edge`: a burst from one client goes past every edge limit and is
 *   stopped by the quota only; and the switch cannot reach a deployed function
 *   through the environment.
 *
 * Crashes are injected from the test's side (a preload that throws on
 * SIGUSR2, given through NODE_OPTIONS): no code path of the service exists for
 * them. Waits are bounded polls; nothing asserts how fast a stop is.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { createPlatform } from '../../lambdas/shared/platform';
import { BIND_FAILED, freePort } from '../../local/dynamo-local';
import { localDocumentClient, startLocalStack } from '../../local/local-stack';
import { LOCAL_STATE_FILE } from '../../local/state-file';
import { startCommand } from '../support/processes/start-command';

const root = join(__dirname, '..', '..');
/** Generous bounds for a loaded machine: a JVM can take half a minute to start there. */
const READY_WITHIN_MS = 120_000;
const GONE_WITHIN_MS = 30_000;

interface StartedEntry {
  /** What was run (the stack's own process, a shell starting it, or npm itself), in its own process group as a terminal's job is. */
  readonly launcher: ChildProcess;
  readonly dynamoPort: number;
  readonly workDir: string;
  output(): string;
  /** The stack's own process (the one that owns DynamoDB Local), from the state file it writes once ready. */
  stackPid(): number;
  exited(): Promise<number | null>;
  /** Resolves once the launcher's output pipes closed: every process holding them is gone and all it wrote was read. */
  drained(): Promise<void>;
}

const started: StartedEntry[] = [];
const servers: Server[] = [];

afterEach(async () => {
  // Whatever a failed test left running: its launcher's group, then its DynamoDB Local by port.
  for (const entry of started.splice(0)) {
    if (entry.launcher.exitCode === null && entry.launcher.signalCode === null) killQuietly(-(entry.launcher.pid as number), 'SIGKILL');
    for (const pid of dynamoProcessesOn(entry.dynamoPort)) killQuietly(pid, 'SIGKILL');
    rmSync(entry.workDir, { recursive: true, force: true });
  }
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

interface EntryOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly port?: number;
  readonly dynamoPort?: number;
  readonly workDir?: string;
  /** Run `npm start` itself (npm, sh, then the stack), or the stack from a shell that waits for it, rather than the stack's process alone. */
  readonly via?: 'npm' | 'sh';
}

async function startEntry(args: string[], options: EntryOptions = {}): Promise<StartedEntry> {
  const workDir = options.workDir ?? (options.via === 'npm' ? npmProject() : mkdtempSync(join(tmpdir(), 'partner-api-process-')));
  const dynamoPort = options.dynamoPort ?? (await freePort());
  const [command, commandArgs] = launch(args, options.via);
  const launcher = spawn(command, commandArgs, {
    cwd: workDir,
    env: { ...process.env, PORT: String(options.port ?? 0), DYNAMO_PORT: String(dynamoPort), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  launcher.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  launcher.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
  // 'exit' can come before the last output is read (the stack's lines as it stops): 'close' comes after both pipes ended.
  const drained = new Promise<void>((resolve) => launcher.once('close', () => resolve()));
  const entry: StartedEntry = {
    launcher,
    dynamoPort,
    workDir,
    output: () => output,
    stackPid: () => (JSON.parse(readFileSync(join(workDir, LOCAL_STATE_FILE), 'utf8')) as { pid: number }).pid,
    exited: () => exit,
    drained: () => drained,
  };
  started.push(entry);
  return entry;
}

/** What runs the stack: `npm start`, a shell that stays its parent (`; exit` keeps sh from exec-ing it), or its process alone. */
function launch(args: string[], via: EntryOptions['via']): [string, string[]] {
  if (via === 'npm') return ['npm', ['start', '--', ...args]];
  const [node, nodeArgs] = startCommand(args);
  if (via === 'sh') return ['sh', ['-c', '"$@"; exit $?', 'sh', node, ...nodeArgs]];
  return [node, nodeArgs];
}

/**
 * A folder where `npm start` runs the repository's own start script (its package.json's), with `local/` and
 * `node_modules/` linked: the stack's state file lands here, not in the checkout a developer's `npm start` uses.
 */
function npmProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'partner-api-npm-'));
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'partner-api-start-probe', private: true, type: 'module', scripts: { start: scripts.start } }));
  symlinkSync(join(root, 'local'), join(dir, 'local'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Started and serving; its DynamoDB Local is running (so that "none left" below means something). */
async function startReady(args: string[], options: EntryOptions = {}): Promise<StartedEntry> {
  // The test picks DynamoDB Local's port (to find its process afterwards): a port free when picked can be taken before
  // Java binds it (the run's own connections take ports of the same ephemeral range), and the stack, told that port,
  // exits rather than choose another. Such a start is tried again on a new port, at most twice.
  for (let attempt = 1; ; attempt += 1) {
    const entry = await startEntry(['--no-seed', ...args], options);
    try {
      await until(() => entry.output().includes('Partner API (local) ready'), READY_WITHIN_MS, () => `npm start did not become ready:\n${entry.output()}`, entry);
    } catch (error) {
      if (attempt < 3 && options.dynamoPort === undefined && entry.launcher.exitCode !== null && BIND_FAILED.test(entry.output())) continue;
      throw error;
    }
    return expectRunning(entry);
  }
}

/** What a started stack shows: its DynamoDB Local running, and its own process alive. */
function expectRunning(entry: StartedEntry): StartedEntry {
  expect(dynamoProcessesOn(entry.dynamoPort).length).toBeGreaterThan(0);
  expect(isAlive(entry.stackPid())).toBe(true);
  return entry;
}

/** The watchdog and Java of the DynamoDB Local listening on this port. */
function dynamoProcessesOn(port: number): number[] {
  const listing = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
  return listing
    .split('\n')
    .filter((line) => line.includes('DynamoDBLocal.jar') && new RegExp(`-port ${port}(\\s|$)`).test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** Poll until `done()`; past the bound, fail with what the process printed. */
async function until(done: () => boolean, withinMs: number, message: () => string, entry?: StartedEntry): Promise<void> {
  const bound = Date.now() + withinMs;
  while (!done()) {
    if (entry && entry.launcher.exitCode !== null && !done()) throw new Error(`npm start exited (${entry.launcher.exitCode}):\n${entry.output()}`);
    if (Date.now() > bound) throw new Error(message());
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Live (not zombie) processes of a process group: what is left of a terminal job. */
function liveProcessesOfGroup(group: number): number[] {
  const listing = spawnSync('ps', ['-eo', 'pid=,pgid=,stat='], { encoding: 'utf8' }).stdout;
  return listing
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, pgid, stat]) => Number(pgid) === group && stat !== undefined && !stat.startsWith('Z'))
    .map(([pid]) => Number(pid));
}

/** What was run has exited (a failing start: once it got as far as it could), and nothing is left: no DynamoDB Local on its port, no process of its job. */
async function expectNothingLeft(entry: StartedEntry, exitWithinMs = GONE_WITHIN_MS): Promise<number | null> {
  const code = await Promise.race([entry.exited(), new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), exitWithinMs))]);
  expect(code, entry.output()).not.toBe('running');
  await until(() => dynamoProcessesOn(entry.dynamoPort).length === 0, GONE_WITHIN_MS, () => `DynamoDB Local on ${entry.dynamoPort} was left behind:\n${entry.output()}`);
  const job = entry.launcher.pid as number;
  await until(() => liveProcessesOfGroup(job).length === 0, GONE_WITHIN_MS, () => `processes ${liveProcessesOfGroup(job).join(', ')} of the job were left behind:\n${entry.output()}`);
  // Nothing of the job is left to hold the pipes: what it wrote is read once they close (bounded, for a holder outside the job).
  await Promise.race([entry.drained(), new Promise((resolve) => setTimeout(resolve, GONE_WITHIN_MS))]);
  return code as number | null;
}

/** A preload that makes the stack's process fail on SIGUSR2 (test side only: NODE_OPTIONS, not a flag of the service). */
function crashOnSigusr2(failure: 'throw' | 'reject'): NodeJS.ProcessEnv {
  const code =
    failure === 'throw'
      ? `process.on('SIGUSR2', () => { throw new Error('injected crash'); });`
      : `process.on('SIGUSR2', () => { Promise.reject(new Error('injected rejection')); });`;
  return { NODE_OPTIONS: `--import=data:text/javascript;base64,${Buffer.from(code).toString('base64')}` };
}

async function listeningServer(): Promise<{ port: number }> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port };
}

describe('npm start leaves no DynamoDB Local behind', () => {
  it('SIGTERM after whatever read its output has gone: the stack still stops in bounded time, nothing is left', async () => {
    const entry = await startReady([]);
    const stackPid = entry.stackPid();
    // The reader goes first (a harness or terminal that closed): every later write of the stack meets a closed pipe.
    entry.launcher.stdout?.destroy();
    entry.launcher.stderr?.destroy();
    // A request: its call-log line is the first write to meet the closed pipe (EPIPE), before the signal's own lines.
    const { baseUrl } = JSON.parse(readFileSync(join(entry.workDir, LOCAL_STATE_FILE), 'utf8')) as { baseUrl: string };
    await fetch(`${baseUrl}/health`).catch((error: unknown) => error);
    process.kill(stackPid, 'SIGTERM');
    await expectNothingLeft(entry);
  }, 240_000);

  it.each([
    { how: 'Ctrl-C (SIGINT to the terminal job: npm, sh and the stack)', signal: 'SIGINT', to: 'job', via: 'npm' },
    { how: 'SIGTERM to the stack', signal: 'SIGTERM', to: 'stack', via: undefined },
    { how: 'SIGHUP (the terminal closed)', signal: 'SIGHUP', to: 'job', via: 'npm' },
  ] as const)('$how: the stack stops in order, nothing is left', async ({ signal, to, via }) => {
    const entry = await startReady([], { via });
    const stackPid = entry.stackPid();
    process.kill(to === 'job' ? -(entry.launcher.pid as number) : stackPid, signal);
    await expectNothingLeft(entry);
    expect(entry.output()).toContain(`${signal}: stopping the local stack`);
    expect(entry.output()).not.toMatch(/not stopped within|exiting anyway|stop failed/);
    // The admin CLI no longer finds a stack that is gone.
    expect(() => readFileSync(join(entry.workDir, LOCAL_STATE_FILE))).toThrow(/ENOENT/);
  }, 240_000);

  it.each([
    { how: 'an uncaught exception', failure: 'throw', printed: 'injected crash' },
    { how: 'an unhandled rejection', failure: 'reject', printed: 'injected rejection' },
  ] as const)('$how in the stack: it stops and exits 1', async ({ failure, printed }) => {
    const entry = await startReady([], { env: crashOnSigusr2(failure) });
    const stackPid = entry.stackPid();
    process.kill(stackPid, 'SIGUSR2');
    expect(await expectNothingLeft(entry)).toBe(1);
    expect(entry.output()).toContain(printed);
    expect(entry.output()).toContain('Crashed: stopping the local stack');
  }, 240_000);

  it('SIGKILL of the stack itself (no code of it runs): its DynamoDB Local still goes', async () => {
    const entry = await startReady([]);
    process.kill(entry.stackPid(), 'SIGKILL');
    await expectNothingLeft(entry);
  }, 240_000);

  it('SIGKILL of its launcher (a shell that started it): the stack notices, stops and exits', async () => {
    const entry = await startReady([], { via: 'sh' });
    process.kill(entry.launcher.pid as number, 'SIGKILL');
    await expectNothingLeft(entry);
    expect(entry.output()).toContain(`The process that started it (pid ${entry.launcher.pid}) is gone`);
  }, 240_000);

  it('SIGKILL of `npm start` itself (sh still between it and the stack): the stack notices, stops and exits', async () => {
    const entry = await startReady([], { via: 'npm' });
    process.kill(entry.launcher.pid as number, 'SIGKILL');
    await expectNothingLeft(entry);
    expect(entry.output()).toContain(`The command that started its job (pid ${entry.launcher.pid}) is gone`);
  }, 240_000);

  it('a start that fails after DynamoDB Local started (the API port taken): exit 1, nothing left', async () => {
    const taken = await listeningServer();
    const entry = await startEntry(['--no-seed'], { port: taken.port });
    expect(await expectNothingLeft(entry, READY_WITHIN_MS)).toBe(1);
    expect(entry.output()).toContain(`Port ${taken.port} is in use`);
  }, 240_000);

  it('a seed that fails (--data folder with demo keys that do not load): exit 1, nothing left', async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'partner-api-process-'));
    mkdirSync(join(workDir, 'db'));
    writeFileSync(join(workDir, 'db', 'demo-keys.json'), '{ not json');
    const entry = await startEntry(['--data', 'db'], { workDir });
    expect(await expectNothingLeft(entry, READY_WITHIN_MS)).toBe(1);
    expect(entry.output()).toContain('does not hold the demo keys npm start saved');
  }, 240_000);

  it("DynamoDB Local's port taken: refused before Java starts, exit 1", async () => {
    const taken = await listeningServer();
    const entry = await startEntry(['--no-seed'], { dynamoPort: taken.port });
    expect(await expectNothingLeft(entry, READY_WITHIN_MS)).toBe(1);
    expect(entry.output()).toContain(`DynamoDB Local's port ${taken.port} is in use`);
  }, 120_000);
});

describe('npm start -- --no-edge', () => {
  it('says so at start; a burst from one client passes every edge limit and is stopped by the quota alone', async () => {
    const entry = await startReady(['--no-edge']);
    expect(entry.output()).toMatch(/edge limits\s+OFF \(--no-edge, local only\)/);
    const state = JSON.parse(readFileSync(join(entry.workDir, LOCAL_STATE_FILE), 'utf8')) as { baseUrl: string; dynamoEndpoint: string; tables: { access: string } };
    const client = localDocumentClient(state.dynamoEndpoint);
    const office = createBackOffice(client, state.tables.access);
    const { account_id } = await office.accounts.create('Load tester');
    const { key } = await office.keys.create({ accountId: account_id, scopes: ['public:read'] });
    client.destroy();

    // Back to back from one client until a limit refuses one: past edge-ip-burst (30 per 10 s), edge-credential-burst
    // (20 per 10 s) and edge-credential-minute (60: the same count as key-minute, so with the edge on, the 61st would be
    // refused by the edge, not the quota).
    const answers: { status: number; policy: string | null }[] = [];
    while (!answers.some((answer) => answer.status === 429) && answers.length < 250) {
      const response = await fetch(`${state.baseUrl}/me`, { headers: { Authorization: `Bearer ${key}` } });
      answers.push({ status: response.status, policy: response.headers.get('x-ratelimit-policy') });
      await response.arrayBuffer();
    }
    const count = (status: number) => answers.filter((answer) => answer.status === status).length;
    expect(answers.filter((answer) => answer.status === 429).map((answer) => answer.policy)).toEqual(['key-minute']);
    // On a busy machine DynamoDB Local may answer the quota store late: 503 RATE_LIMIT_UNAVAILABLE (it fails closed, and
    // such a call may have used its slot). Nothing else refuses.
    expect(count(200) + count(503)).toBeGreaterThanOrEqual(60);
    expect(count(200) + count(429) + count(503)).toBe(answers.length);
  }, 240_000);

  it('cannot reach a deployed function: the environment a local stack without edge limits leaves builds a platform with its edge guard', async () => {
    const stack = await startLocalStack({ dynamoEndpoint: inject('dynamoEndpoint'), tablePrefix: `no-edge-${process.pid}`, edgeProtection: false, webhooks: false, scheduledJobs: false });
    try {
      // As a deployed function builds its platform: from its environment only, without the local stack's options.
      const deployed = createPlatform({ tables: {} });
      expect(deployed.edgeGuard).toBeDefined();
      expect(deployed.localSwitches).toBeUndefined();
    } finally {
      await stack.stop();
    }
  });
});
