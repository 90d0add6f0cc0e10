import { stringify } from 'yaml';

/** A kubeconfig for the single admin user of the local API server. */
export interface KubeconfigOptions {
  readonly server: string;
  /** PEM of the serving certificate when TLS is on; without it the cluster entry skips TLS verification. */
  readonly certificateAuthority?: string;
  readonly token?: string;
  readonly name?: string;
  readonly namespace?: string;
}

export function renderKubeconfig(options: KubeconfigOptions): string {
  const name = options.name ?? 'olm-local';
  const cluster: Record<string, unknown> = { server: options.server };
  if (options.certificateAuthority !== undefined) cluster['certificate-authority-data'] = Buffer.from(options.certificateAuthority).toString('base64');
  // client-node refuses plain http unless the cluster skips TLS verification.
  else cluster['insecure-skip-tls-verify'] = true;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    contexts: [{ name, context: { cluster: name, user: `${name}-admin`, namespace: options.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
    users: [{ name: `${name}-admin`, user: options.token !== undefined ? { token: options.token } : {} }],
  });
}
