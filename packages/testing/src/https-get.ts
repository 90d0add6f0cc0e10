import { request } from 'node:https';

export interface HttpsReply {
  readonly status: number;
  readonly body: string;
}

/** GET over HTTPS trusting only `ca` (a server's self-signed certificate), as `curl --cacert` does. */
export function httpsGet(url: string, ca: string): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const call = request(new URL(url), { ca, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end();
  });
}
