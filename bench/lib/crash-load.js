import { setTimeout as sleep } from 'node:timers/promises';

/** What a crash-cycles client adds under `key`: a job every hour, so the store grows but the firing load does not. */
export function createRequest(key) {
  return { input: { name: key, every: '1h', argv: ['true'] }, idempotencyKey: key };
}

/**
 * `lanes` creators on one connection, each adding one job at a time under a fresh idempotency key (also its
 * name) with a random pause of up to `pauseMs` between creates, until the daemon goes away. Keeps which
 * keys were acknowledged (and with which job), which got no answer, and which were refused.
 */
export function startCreates(client, { prefix, lanes, pauseMs, random }) {
  const acknowledged = new Map();
  const unanswered = new Set();
  const refused = [];
  let stopped = false;
  const lane = async (laneIndex) => {
    for (let i = 0; !stopped; i++) {
      const key = `${prefix}-${laneIndex}-${i}`;
      unanswered.add(key);
      try {
        const job = await client.call('job.add', createRequest(key));
        unanswered.delete(key);
        acknowledged.set(key, job.id);
      } catch (error) {
        if (error.code === 'DAEMON_UNAVAILABLE') return;
        unanswered.delete(key);
        refused.push({ key, code: error.code, message: error.message });
      }
      await sleep(random() * pauseMs);
    }
  };
  const done = Promise.all(Array.from({ length: lanes }, (_, laneIndex) => lane(laneIndex)));
  return {
    acknowledged,
    unanswered,
    refused,
    /** Resolves once every lane has seen the daemon go. */
    finished: () => {
      stopped = true;
      return done;
    },
  };
}
