import type { KubeClient } from '@olm/core';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';

/**
 * What an operator pod serving an aggregated API does, on this machine: an HTTPS server presenting the
 * serving certificate OLM wrote into its Secret (read at each handshake, as a pod mounting the Secret
 * would see it) and answering discovery of its group/version. The local API server reaches it through
 * the APIService's Service and checks it for the `Available` condition, verifying its certificate
 * against the APIService's CA bundle for `<service>.<namespace>.svc`.
 */
export type BackendMode =
  /** Discovery lists the kinds. */
  | 'serving'
  /** TLS handshakes fail (nothing serves). */
  | 'refusing'
  /** Discovery answers 200 with a body that is no discovery document. */
  | 'garbage';

export interface ApiBackend {
  readonly port: number;
  mode: BackendMode;
  close(): Promise<void>;
}

export async function startApiBackend(
  client: KubeClient,
  options: { namespace: string; secret: string; groupVersion: string; resources: ReadonlyArray<{ name: string; kind: string }> },
): Promise<ApiBackend> {
  let mode: BackendMode = 'serving';
  const server = createServer(
    {
      SNICallback: (_servername, callback) => {
        if (mode === 'refusing') {
          callback(new Error('not serving'), undefined);
          return;
        }
        client.get({ apiVersion: 'v1', kind: 'Secret', namespace: options.namespace, name: options.secret }).then(
          (secret) => {
            const data = secret.data as Record<string, string>;
            const decode = (key: string) => Buffer.from(data[key] ?? '', 'base64').toString('utf8');
            callback(null, createSecureContext({ cert: decode('tls.crt'), key: decode('tls.key') }));
          },
          (error: Error) => callback(error, undefined),
        );
      },
    },
    (request, response) => {
      if (request.url !== `/apis/${options.groupVersion}`) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (mode === 'garbage') {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('this is not a discovery document');
        return;
      }
      const resources = options.resources.map(({ name, kind }) => ({ name, singularName: '', namespaced: true, kind, verbs: ['get', 'list'] }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: options.groupVersion, resources }));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get mode() {
      return mode;
    },
    set mode(next: BackendMode) {
      mode = next;
      // Kept-alive connections and resumed sessions skip the handshake: drop both so the new mode shows at once.
      server.closeAllConnections();
      server.setTicketKeys(randomBytes(48));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
