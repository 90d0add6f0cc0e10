import type { JwtSigner } from '../auth/jwt-signer.js';
import { issueLegacyToken } from '../auth/service-account-tokens.js';
import type { Cluster } from '../cluster.js';
import { StatusError } from '../errors.js';
import { isJsonObject, type KubeObject } from '../kube-object.js';
import type { StoreEvent } from '../store.js';
import { WorkQueue } from './controller-loop.js';

const secretResource = '/secrets';
const serviceAccountResource = '/serviceaccounts';
export const serviceAccountTokenType = 'kubernetes.io/service-account-token';
const nameAnnotation = 'kubernetes.io/service-account.name';
const uidAnnotation = 'kubernetes.io/service-account.uid';

/**
 * kube-controller-manager's token controller, for legacy ServiceAccount token Secrets: a Secret of
 * type `kubernetes.io/service-account-token` annotated `kubernetes.io/service-account.name` gets
 * `data.token` (a token that never expires), `data.namespace`, `data["ca.crt"]` (with TLS) and the
 * account's uid annotation. A Secret naming an account that does not exist (or no longer has that
 * uid) is deleted, and so are an account's token Secrets when it is deleted.
 */
export class ServiceAccountTokenController {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly signer: JwtSigner,
    private readonly caCertificate: string | undefined,
  ) {
    this.queue = new WorkQueue((key) => this.reconcile(key));
  }

  start(): void {
    for (const secret of this.cluster.store.list(secretResource)) if (isTokenSecret(secret)) this.queue.add(`secret/${keyOf(secret)}`);
    this.unsubscribe = this.cluster.store.subscribe((event) => this.onEvent(event));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private onEvent(event: StoreEvent): void {
    if (event.resource === secretResource && event.type !== 'DELETED' && isTokenSecret(event.object)) this.queue.add(`secret/${keyOf(event.object)}`);
    else if (event.resource === serviceAccountResource && event.type === 'DELETED') this.queue.add(`account/${keyOf(event.object)}`);
  }

  private reconcile(key: string): void {
    const [kind = '', namespace = '', name = ''] = key.split('/');
    if (kind === 'secret') this.reconcileSecret(namespace, name);
    else for (const secret of this.cluster.store.list(secretResource, namespace)) if (isTokenSecret(secret) && annotation(secret, nameAnnotation) === name) this.reconcileSecret(namespace, secret.metadata.name ?? '');
  }

  private reconcileSecret(namespace: string, name: string): void {
    const secrets = this.cluster.registry.get('', 'secrets');
    if (!secrets) return;
    const secret = this.cluster.tryGet(secrets, namespace, name);
    if (!secret || !isTokenSecret(secret) || secret.metadata.deletionTimestamp !== undefined) return;
    const accountName = annotation(secret, nameAnnotation);
    if (accountName === '') return;
    const account = this.cluster.store.get(serviceAccountResource, namespace, accountName);
    const wantedUid = annotation(secret, uidAnnotation);
    if (!account || (wantedUid !== '' && wantedUid !== account.metadata.uid)) {
      this.ignoreNotFound(() => this.cluster.delete(secrets, namespace, name, { fieldManager: 'kube-controller-manager' }));
      return;
    }
    const data = isJsonObject(secret['data']) ? secret['data'] : {};
    const complete = typeof data['token'] === 'string' && data['token'] !== '' && data['namespace'] !== undefined && (this.caCertificate === undefined || data['ca.crt'] !== undefined) && wantedUid !== '';
    if (complete) return;
    const base64 = (text: string): string => Buffer.from(text).toString('base64');
    const next: KubeObject = {
      ...secret,
      metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, [uidAnnotation]: account.metadata.uid ?? '' } },
      data: {
        ...data,
        token: typeof data['token'] === 'string' && data['token'] !== '' ? data['token'] : base64(issueLegacyToken(this.signer, account, name)),
        namespace: base64(namespace),
        ...(this.caCertificate !== undefined ? { 'ca.crt': base64(this.caCertificate) } : {}),
      },
    };
    this.cluster.update(secrets, 'v1', namespace, name, next, { fieldManager: 'kube-controller-manager' });
  }

  private ignoreNotFound(write: () => void): void {
    try {
      write();
    } catch (error) {
      if (!(error instanceof StatusError && error.code === 404)) throw error;
    }
  }
}

function isTokenSecret(secret: KubeObject): boolean {
  return secret['type'] === serviceAccountTokenType;
}

function annotation(object: KubeObject, key: string): string {
  return object.metadata.annotations?.[key] ?? '';
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}
