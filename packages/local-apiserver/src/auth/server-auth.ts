import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster } from '../cluster.js';
import { ServiceAccountTokenController } from '../controllers/service-account-token-controller.js';
import type { ResourceRegistry } from '../resource-type.js';
import { AccessControl } from './access-control.js';
import { authApiTypes, tokenSubresource } from './auth-api-types.js';
import { Authenticator, type StaticTokenUser } from './authenticator.js';
import { Authorizer } from './authorizer.js';
import { ensureBootstrapPolicy } from './bootstrap-policy.js';
import { hostCheck, type HostCheck } from './host-check.js';
import { JwtSigner } from './jwt-signer.js';
import { RbacAuthorizer } from './rbac-authorizer.js';

/**
 * Puts authentication and authorization together for `startApiServer`: the served review kinds,
 * the bootstrap RBAC policy, the admin token (the given one, else one kept in `<dataDir>/auth`,
 * else a random one), the ServiceAccount signing key, the access-control front and the legacy
 * token controller.
 */
export interface ServerAuthOptions {
  readonly dataDir: string | undefined;
  readonly token: string | undefined;
  readonly users: readonly StaticTokenUser[];
  readonly maxBodyBytes: number;
  /** PEM of the serving certificate, put into legacy token Secrets as `ca.crt`. */
  readonly caCertificate: string | undefined;
  /** Whether requests without a token are anonymous (else 401); see AccessControlOptions. */
  readonly anonymousAuth: boolean;
}

export interface ServerAuth {
  readonly adminToken: string;
  readonly accessControl: AccessControl;
  readonly tokenController: ServiceAccountTokenController;
  /** Called once the server listens: the Host check needs its address and port. */
  listening(host: string, port: number, tls: boolean): void;
  stop(): void;
}

/** Adds the authentication and authorization kinds to discovery (before the registry is used). */
export function registerAuthTypes(registry: ResourceRegistry): void {
  for (const type of authApiTypes()) registry.add(type);
  const serviceAccounts = registry.get('', 'serviceaccounts');
  if (serviceAccounts) registry.add({ ...serviceAccounts, additionalSubresources: [tokenSubresource] });
}

export function setUpServerAuth(cluster: Cluster, options: ServerAuthOptions): ServerAuth {
  ensureBootstrapPolicy(cluster);
  const authDirectory = options.dataDir !== undefined ? join(options.dataDir, 'auth') : undefined;
  const adminToken = options.token ?? keptAdminToken(authDirectory);
  const signer = JwtSigner.open(authDirectory !== undefined ? join(authDirectory, 'sa.key') : undefined);
  const rbac = new RbacAuthorizer(cluster.store);
  const authorizer = new Authorizer(rbac);
  const authenticator = new Authenticator(adminToken, options.users, signer, cluster.store);
  let check: HostCheck = () => undefined;
  const accessControl = new AccessControl({ cluster, authenticator, authorizer, signer, hostCheck: (host) => check(host), maxBodyBytes: options.maxBodyBytes, anonymousAuth: options.anonymousAuth });
  return {
    adminToken,
    accessControl,
    tokenController: new ServiceAccountTokenController(cluster, signer, options.caCertificate),
    listening(host, port, tls) {
      check = hostCheck(host, port, tls);
    },
    stop() {
      rbac.stop();
    },
  };
}

/** A random admin token, kept in the data directory (mode 0600) so that kubeconfigs survive restarts. */
function keptAdminToken(directory: string | undefined): string {
  const path = directory !== undefined ? join(directory, 'admin-token') : undefined;
  if (path !== undefined && existsSync(path)) {
    const kept = readFileSync(path, 'utf8').trim();
    if (kept !== '') return kept;
  }
  const token = randomBytes(32).toString('base64url');
  if (directory !== undefined && path !== undefined) {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileSync(path, `${token}\n`, { mode: 0o600 });
  }
  return token;
}
