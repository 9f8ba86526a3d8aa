import fs from 'node:fs';
const [file, name, depth = '6'] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(file));
const byId = new Map(p.nodes.map(n => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const chains = new Map();
for (const n of p.nodes) {
  if (n.callFrame.functionName !== name) continue;
  const t = self.get(n.id) ?? 0; if (!t) continue;
  let chain = []; let cur = parent.get(n.id);
  for (let d = 0; d < +depth && cur; d++) { const c = byId.get(cur).callFrame; chain.push(`${c.functionName}@${(c.url||'').split('/').slice(-2).join('/')}:${c.lineNumber}`); cur = parent.get(cur); }
  const k = chain.join(' < ');
  chains.set(k, (chains.get(k) ?? 0) + t);
}
for (const [k, t] of [...chains].sort((a,b)=>b[1]-a[1]).slice(0, 12)) console.log((t/1000).toFixed(0).padStart(7), 'ms', k);
