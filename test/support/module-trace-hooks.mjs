import fs from 'node:fs';

const traceFile = process.env.SCHED_TEST_MODULE_TRACE;

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (traceFile) fs.appendFileSync(traceFile, `${resolved.url}\n`);
  return resolved;
}
