import { build } from 'esbuild';
import { rmSync } from 'node:fs';
const [entry, outdir] = process.argv.slice(2);
rmSync(outdir, { recursive: true, force: true });
const r = await build({ absWorkingDir: '/work/main', entryPoints: { index: entry }, bundle: true, target: 'node22', platform: 'node', format: 'esm', splitting: true, outdir, outExtension: { '.js': '.mjs' }, chunkNames: 'chunks/[name]-[hash]', minify: true, sourcemap: true, sourcesContent: false, mainFields: ['module','main'], metafile: true, logLevel: 'error',
  banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" } });
const outs = r.metafile.outputs;
const entryOut = Object.keys(outs).find(k => k.endsWith('/index.mjs'));
const seen = new Set(); const stack = [entryOut];
while (stack.length) { const o = stack.pop(); if (seen.has(o)) continue; seen.add(o); for (const i of outs[o].imports) if (i.kind === 'import-statement' && outs[i.path]) stack.push(i.path); }
const kib = (b) => (b/1024).toFixed(1);
const init = [...seen].reduce((s, o) => s + outs[o].bytes, 0);
const total = Object.entries(outs).filter(([k]) => !k.endsWith('.map')).reduce((s, [, o]) => s + o.bytes, 0);
console.log(entry, 'init', kib(init), 'KiB total', kib(total), 'KiB; chunks:', Object.keys(outs).filter(k=>!k.endsWith('.map')).length);
if (process.env.SHOW) { const groups = {}; for (const o of seen) for (const [f, i] of Object.entries(outs[o].inputs)) { let g = f.replace(/^.*node_modules\//, ''); g = f.includes('node_modules') ? (g.startsWith('@') ? g.split('/').slice(0,2).join('/') : g.split('/')[0]) : f.split('/').slice(0,3).join('/'); groups[g] = (groups[g] ?? 0) + i.bytesInOutput; }
for (const [g, b] of Object.entries(groups).sort((a,b)=>b[1]-a[1]).slice(0, +process.env.SHOW)) console.log('  ', kib(b).padStart(7), g); }
