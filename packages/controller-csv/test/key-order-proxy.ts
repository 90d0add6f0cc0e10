import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTP proxy in front of an API server that returns every JSON object with its keys in reverse
 * order: a server that orders keys its own way (a real one sorts map keys and writes struct fields in
 * Go's order), as seen by a controller that must not care. Watch streams are rewritten line by line.
 */
export async function startKeyOrderProxy(target: string): Promise<{ url: string; kubeconfig(original: string): string; stop(): Promise<void> }> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((incoming, outgoing) => {
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: upstream.host } },
      (response: IncomingMessage) => {
        const headers = { ...response.headers };
        const json = (headers['content-type'] ?? '').startsWith('application/json');
        if (json) delete headers['content-length'];
        outgoing.writeHead(response.statusCode ?? 502, headers);
        // As the API server does for watches: a client waits for the headers before it can close the stream.
        outgoing.flushHeaders();
        if (!json) {
          response.pipe(outgoing);
          return;
        }
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let newline = buffer.indexOf('\n');
          while (newline >= 0) {
            outgoing.write(`${reorder(buffer.slice(0, newline))}\n`);
            buffer = buffer.slice(newline + 1);
            newline = buffer.indexOf('\n');
          }
        });
        response.on('end', () => outgoing.end(buffer === '' ? undefined : reorder(buffer)));
        response.on('error', () => outgoing.destroy());
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    kubeconfig: (original) => original.split(target).join(url),
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function reorder(text: string): string {
  if (text.trim() === '') return text;
  try {
    return JSON.stringify(reversed(JSON.parse(text)));
  } catch {
    return text;
  }
}

function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) out[key] = reversed((value as Record<string, unknown>)[key]);
  return out;
}
