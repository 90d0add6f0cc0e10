// Runs a local API server in its own process for the benchmarks, so that the load generator does
// not share the server's event loop. Prints the URL on stdout; stops on SIGTERM or stdin close.
import { startApiServer } from '../dist/index.js';

const options = JSON.parse(process.argv[2] ?? '{}');
const server = await startApiServer({ port: 0, ...options });
process.stdout.write(`${server.url}\n`);
const stop = async () => {
  await server.stop();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
