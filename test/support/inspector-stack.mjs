// `node inspector-stack.mjs [PORT]`: prints where the JavaScript of the process whose inspector listens on
// 127.0.0.1:PORT (9229; `kill -USR1 PID` opens it) is, three times 300 ms apart, then detaches. For a test
// whose daemon stopped answering: a busy loop shows the same frames each time. Exits within 20 s.
import { fetch, WebSocket } from 'undici';

const port = Number(process.argv[2] ?? 9229);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const SAMPLES = 3;

setTimeout(() => {
  console.log('inspector-stack: no answer within 20 s');
  process.exit(0);
}, 20_000).unref();

let targets = null;
for (let attempt = 0; attempt < 50 && targets === null; attempt += 1) {
  try {
    targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  } catch {
    await pause(200);
  }
}
if (targets === null || targets.length === 0) {
  console.log(`inspector-stack: no inspector on port ${port}`);
  process.exit(0);
}

const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
let id = 0;
const send = (method, params = {}) => socket.send(JSON.stringify({ id: (id += 1), method, params }));
let samples = 0;
socket.onopen = () => {
  send('Debugger.enable');
  send('Debugger.pause');
};
socket.onmessage = async (event) => {
  const message = JSON.parse(String(event.data));
  if (message.method !== 'Debugger.paused') return;
  samples += 1;
  console.log(`inspector-stack: sample ${samples}`);
  for (const frame of message.params.callFrames.slice(0, 40)) {
    const where = frame.url.replace(/^.*\/(dist|node_modules)\//, '$1/');
    console.log(`  ${frame.functionName || '(anonymous)'} ${where}:${frame.location.lineNumber + 1}`);
  }
  send('Debugger.resume');
  if (samples >= SAMPLES) {
    send('Debugger.disable');
    setTimeout(() => process.exit(0), 200);
    return;
  }
  await pause(300);
  send('Debugger.pause');
};
