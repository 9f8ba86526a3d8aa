import http from 'node:http';

/** The loopback endpoint HTTP jobs call: reads the request, answers 204, counts. */
export function startHttpTarget() {
  let calls = 0;
  const server = http.createServer((request, response) => {
    calls += 1;
    request.resume();
    response.statusCode = 204;
    response.end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/tick`,
        calls: () => calls,
        close: () => {
          server.closeAllConnections();
          return new Promise((done) => server.close(() => done()));
        },
      }),
    );
  });
}
