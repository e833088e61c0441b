/**
 * The stack's process as `npm start` runs it (package.json: `node --import tsx local/start.ts`), from any working
 * directory: Node with tsx's loader in process, no tsx CLI between the launcher and the stack. Tests run it in a
 * folder of their own, where `--import tsx` would not resolve, so the loader is named by its file.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(__dirname, '..', '..', '..');
const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** The command and arguments that run `local/start.ts` with `args`, as `npm start -- <args>` does. */
export function startCommand(args: readonly string[] = []): [string, string[]] {
  return [process.execPath, ['--import', tsxLoader, join(root, 'local', 'start.ts'), ...args]];
}
