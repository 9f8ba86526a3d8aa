import { request } from 'undici';

/**
 * Reads a Server-Sent Events stream at `url` with undici, calling `onEvent(event, arrivedAt)` for each
 * `data:` message as it is parsed (`arrivedAt`: performance.now() when its chunk came in). Resolves once
 * the stream is open (its head and first comment read); `close()` ends it.
 */
export async function openEventStream(url, { token, dispatcher, onEvent, now }) {
  const answer = await request(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    dispatcher,
  });
  if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.statusCode} ${await answer.body.text()}`);
  answer.body.setEncoding('utf8');
  let buffered = '';
  let closing = false;
  let opened;
  const open = new Promise((resolve) => (opened = resolve));
  const reading = (async () => {
    for await (const chunk of answer.body) {
      const arrivedAt = now();
      buffered += chunk;
      opened();
      let end;
      while ((end = buffered.indexOf('\n\n')) !== -1) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (data !== undefined) onEvent(JSON.parse(data), arrivedAt);
      }
    }
  })().catch((error) => {
    if (!closing) throw error;
  });
  await open;
  return {
    close: async () => {
      closing = true;
      answer.body.destroy();
      await reading;
    },
  };
}
