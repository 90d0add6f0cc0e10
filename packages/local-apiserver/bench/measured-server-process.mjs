// Runs a local API server in its own process and, on SIGTERM, prints what it cost: peak RSS and the
// longest event-loop block seen while it served (one JSON line), then exits.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startApiServer } from '../dist/index.js';

const options = JSON.parse(process.argv[2] ?? '{}');
const server = await startApiServer({ port: 0, ...options });
const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
process.stdout.write(`${server.url}\n`);
process.on('SIGTERM', async () => {
  delay.disable();
  const stats = { peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), longestBlockMs: Math.round(delay.max / 1e6) };
  await server.stop();
  process.stdout.write(`${JSON.stringify(stats)}\n`);
  process.exit(0);
});
