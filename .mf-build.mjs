import { build } from 'esbuild';
import { writeFileSync, statSync } from 'node:fs';
const [entry, out] = process.argv.slice(2);
const r = await build({ absWorkingDir: '/work/main', entryPoints: [entry], bundle: true, target: 'node22', platform: 'node', format: 'cjs', outfile: out, minify: true, sourcemap: true, sourcesContent: false, mainFields: ['module','main'], metafile: true, logLevel: 'warning' });
writeFileSync(out + '.meta.json', JSON.stringify(r.metafile));
const groups = {};
for (const [f, o] of Object.entries(r.metafile.outputs[Object.keys(r.metafile.outputs).find(k=>k.endsWith('.js'))].inputs)) {
  let g = f.replace(/^.*node_modules\//, '');
  g = g.startsWith('@') ? g.split('/').slice(0,2).join('/') : g.includes('node_modules') || f.includes('node_modules') ? g.split('/')[0] : f.split('/').slice(0,3).join('/');
  groups[g] = (groups[g] ?? 0) + o.bytesInOutput;
}
console.log(out, (statSync(out).size/1024).toFixed(1), 'KiB');
for (const [g, b] of Object.entries(groups).sort((a,b)=>b[1]-a[1]).slice(0, 30)) console.log('  ', (b/1024).toFixed(1).padStart(7), g);
