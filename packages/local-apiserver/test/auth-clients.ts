import { AuthenticationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { ApiServer } from '../src/index.js';
import { call, type RawResponse } from './helpers.js';

/** Clients of the local server as users other than the admin: a kubeconfig per bearer token. */
export function kubeConfigFor(server: ApiServer, token: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'local', server: server.url, skipTLSVerify: server.caCertificate === undefined, ...(server.caCertificate ? { caData: Buffer.from(server.caCertificate).toString('base64') } : {}) }],
    users: [{ name: 'user', token }],
    contexts: [{ name: 'local', cluster: 'local', user: 'user' }],
    currentContext: 'local',
  });
  return config;
}

/** A raw request with `token` instead of the admin's. */
export function callAs(server: ApiServer, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return call(server, method, path, body, { ...headers, Authorization: `Bearer ${token}` });
}

/** A bound token for a ServiceAccount (made if absent), through the TokenRequest API as the admin. */
export async function serviceAccountToken(server: ApiServer, namespace: string, name: string, spec: Record<string, unknown> = {}): Promise<string> {
  const admin = new KubeConfig();
  admin.loadFromString(server.kubeconfig);
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } }).catch((error: { code?: number }) => {
    if (error.code !== 409) throw error;
  });
  const response = await core.createNamespacedServiceAccountToken({ namespace, name, body: { spec: { audiences: [], ...spec } } });
  const token = response.status?.token;
  if (!token) throw new Error('TokenRequest answered without a token');
  return token;
}

/** Who the server thinks a token is (SelfSubjectReview, as `kubectl auth whoami`). */
export async function whoami(server: ApiServer, token: string): Promise<{ username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }> {
  const review = await kubeConfigFor(server, token).makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
  return review.status?.userInfo ?? {};
}

export const rbac = (kind: string, name: string, rest: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name }, ...rest });
