import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: Array<{ name: string; context: { cluster: string; user: string } }>;
  clusters?: Array<{ name: string; cluster: { server: string; 'certificate-authority-data'?: string } }>;
  users?: Array<{ name: string; user: { token?: string } }>;
}

/**
 * Sends a request to the server of a kubeconfig's current context, as a client of a real cluster
 * would: trusting only the kubeconfig's CA and sending its bearer token.
 */
export function kubeconfigRequest(
  kubeconfigPath: string,
  method: string,
  path: string,
  body?: { readonly contentType: string; readonly text: string },
): Promise<{ status: number; text: string }> {
  const config = parse(readFileSync(kubeconfigPath, 'utf8')) as KubeconfigFile;
  const context = config.contexts?.find((entry) => entry.name === config['current-context'])?.context;
  const cluster = config.clusters?.find((entry) => entry.name === context?.cluster)?.cluster;
  const user = config.users?.find((entry) => entry.name === context?.user)?.user;
  if (!cluster) throw new Error(`${kubeconfigPath}: no cluster for the current context`);
  const ca = cluster['certificate-authority-data'] ? Buffer.from(cluster['certificate-authority-data'], 'base64') : undefined;
  const headers: Record<string, string> = {
    ...(user?.token ? { authorization: `Bearer ${user.token}` } : {}),
    ...(body ? { 'content-type': body.contentType } : {}),
  };
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL(path, cluster.server), { method, ca, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body?.text);
  });
}

export const kubeconfigGet = (kubeconfigPath: string, path: string) => kubeconfigRequest(kubeconfigPath, 'GET', path);

export async function kubeconfigGetJson<T>(kubeconfigPath: string, path: string): Promise<T> {
  const { status, text } = await kubeconfigGet(kubeconfigPath, path);
  if (status !== 200) throw new Error(`GET ${path}: ${status} ${text}`);
  return JSON.parse(text) as T;
}
