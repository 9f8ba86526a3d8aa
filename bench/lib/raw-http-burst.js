// The floor of a burst of HTTP requests on this machine: a bare Node process (forked by burst.js) sends
// COUNT requests with undici at one instant, as the daemon's HTTP executor does (an Agent with no limit of
// connections per origin, each request a POST with the executor's headers), and nothing else: no store, no
// scheduler. It reports when the last request() call returned (the executor stamps a run started right
// after it) and when each response came back; the endpoint, in the parent, records when each arrived.
//   argv: URL COUNT INSTANT (epoch ms)      → parent: { type: 'done', dispatchedMs, answered }
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';

const [url, countText, instantText] = process.argv.slice(2);
const count = Number(countText);
const instant = Number(instantText);
const agent = new Agent({ keepAliveTimeout: 4_000, connections: null });

await sleep(Math.max(0, instant - Date.now()));
while (Date.now() < instant) {
  // the last millisecond, spun, so the burst starts at the instant and not up to a timer's slack after it
}
const pending = [];
for (let index = 0; index < count; index++) {
  pending.push(
    request(url, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'Idempotency-Key': `raw-${index}`, 'X-Sched-Fence': '1' },
      body: null,
    }).then(async (response) => {
      await response.body.dump();
      return Date.now() - instant;
    }),
  );
}
const dispatchedMs = Date.now() - instant;
const answered = await Promise.all(pending);
process.send({ type: 'done', dispatchedMs, answered });
await agent.close();
process.disconnect();
