import type { ServerResponse } from 'node:http';
import { pathNotFound } from './errors.js';

/**
 * `/healthz`, `/livez` and `/readyz` as kube-apiserver answers them: `ok`, or with `?verbose` one
 * line per check (`[+]ping ok`) and `<endpoint> check passed`; `/<endpoint>/<check>` answers for one
 * check, and an unknown check is 404. Nothing here can fail while the process serves, so every
 * check passes; the names are kube-apiserver's that mean something for this server.
 */
const checks: Readonly<Record<string, readonly string[]>> = {
  healthz: ['ping', 'log', 'etcd'],
  livez: ['ping', 'log', 'etcd'],
  readyz: ['ping', 'log', 'etcd', 'etcd-readiness', 'informer-sync', 'shutdown'],
};

export function serveHealth(response: ServerResponse, path: string, query: URLSearchParams): void {
  const [endpoint = '', check] = path.split('/');
  const names = checks[endpoint] ?? [];
  if (check !== undefined && !names.includes(check)) throw pathNotFound();
  const excluded = new Set(query.getAll('exclude'));
  let text = 'ok';
  if (check === undefined && query.has('verbose')) {
    const lines = names.map((name) => (excluded.has(name) ? `[+]${name} excluded: ok` : `[+]${name} ok`));
    text = `${lines.join('\n')}\n${endpoint} check passed\n`;
  }
  response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  response.end(text);
}
