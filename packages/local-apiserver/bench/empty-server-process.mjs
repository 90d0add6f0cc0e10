// The loopback floor of the write benchmarks: a Node HTTP server that reads each request and answers
// 201 with a small JSON object, doing no API work. Prints its URL; stops on SIGTERM or stdin close.
import { createServer } from 'node:http';

const answer = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'floor', namespace: 'default', resourceVersion: '1' } });
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer) });
    response.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
