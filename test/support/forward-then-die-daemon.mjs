// A test composition of the daemon: `sched` itself (bin/run.js, so `daemon run` takes every peer flag), except
// that once the file `die-on-forward` exists in SCHED_HOME, this node, leading, takes the first job created
// through another node (a forwarded createJob) into its log and dies with SIGKILL in the same turn: its
// answer is never sent, nor most likely its appends, so the writer hears nothing from it again.
import fs from 'node:fs';
import path from 'node:path';
import { CommandForwarding } from '../../dist/cluster/peer/command-forwarding.js';

const armed = path.join(process.env.SCHED_HOME, 'die-on-forward');
const take = CommandForwarding.prototype.take;
CommandForwarding.prototype.take = function (body) {
  if (!fs.existsSync(armed) || JSON.parse(body.toString()).command?.op !== 'createJob')
    return take.call(this, body);
  const streams = this.streams;
  const unanswering = {
    send: (to, topic, message) => topic !== 'forward-reply' && streams.send(to, topic, message),
  };
  take.call(Object.create(this, { streams: { value: unanswering } }), body);
  process.kill(process.pid, 'SIGKILL');
};
await import('../../bin/run.js');
