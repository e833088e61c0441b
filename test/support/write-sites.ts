/**
 * Every write site of `lambdas/`: each named function or method that sends a DynamoDB write (a Put, Update or Delete
 * command, a transaction) or makes one through the shared exactly-once helpers. Read from the sources with the
 * TypeScript parser, so a new write is found wherever it is added. docs/faults.md must have a row for each
 * (test/unit/structure/fault-table.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');

/** What makes a write: the document client's write commands and the shared helpers that send them. */
const WRITE_CONSTRUCTORS = new Set(['PutCommand', 'UpdateCommand', 'DeleteCommand', 'TransactWriteCommand', 'BatchWriteCommand']);
const WRITE_HELPERS = new Set(['writeOnce', 'writeOnceOrThrow', 'deleteOnce']);
/** The mechanism itself, not a site. */
const MECHANISM = new Set(['lambdas/shared/storage/write-once.ts']);

export interface WriteSite {
  /** `lambdas/…/file.ts` */
  readonly file: string;
  /** The enclosing named function or method (`Class.method` is reported as `method`). */
  readonly method: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'page' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.generated.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node): string | undefined {
  if ((ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node) || ts.isGetAccessor(node)) && node.name) return node.name.getText();
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && node.parent) {
    const parent = node.parent;
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return undefined;
}

function enclosingName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    const name = nameOf(at);
    if (name) return name;
  }
  return '(module)';
}

export function writeSites(): WriteSite[] {
  const sites = new Map<string, WriteSite>();
  for (const path of sourceFiles(join(ROOT, 'lambdas'))) {
    const file = relative(ROOT, path).split('\\').join('/');
    if (MECHANISM.has(file)) continue;
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      const isWrite =
        (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && WRITE_CONSTRUCTORS.has(node.expression.text)) ||
        (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && WRITE_HELPERS.has(node.expression.text));
      if (isWrite) {
        const method = enclosingName(node);
        sites.set(`${file} ${method}`, { file, method });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return [...sites.values()].sort((a, b) => `${a.file} ${a.method}`.localeCompare(`${b.file} ${b.method}`));
}
