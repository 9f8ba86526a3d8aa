import http from 'node:http';

/**
 * The loopback endpoint HTTP jobs call: reads the request, answers 204, counts; with `arrivals`, also keeps
 * when each request arrived (epoch ms).
 */
export function startHttpTarget({ arrivals = false } = {}) {
  let calls = 0;
  const arrived = [];
  const server = http.createServer((request, response) => {
    calls += 1;
    if (arrivals) arrived.push(Date.now());
    request.resume();
    response.statusCode = 204;
    response.end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // A burst opens a connection per job at once: past the default backlog (511), connects are dropped and
    // retried a second later, which would be the endpoint's delay, not the daemon's.
    server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/tick`,
        calls: () => calls,
        arrivals: () => arrived,
        close: () => {
          server.closeAllConnections();
          return new Promise((done) => server.close(() => done()));
        },
      }),
    );
  });
}
