import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserInfo } from './auth/user-info.js';
import type { Cluster } from './cluster.js';

/**
 * The aggregator's front proxy, as kube-apiserver has it (`--proxy-client-cert-file`,
 * `--requestheader-*`): a client certificate (CN `front-proxy-client`, signed by a front-proxy CA)
 * that proxied requests and availability checks present to aggregated API servers, which then
 * trust the user named in the X-Remote-* headers. The CA and the header names are published in
 * ConfigMap `kube-system/extension-apiserver-authentication` for those servers to read.
 */
export interface FrontProxyMaterial {
  readonly caCertificate: string;
  readonly clientCertificate: string;
  readonly clientKey: string;
}

export const frontProxyClientName = 'front-proxy-client';
const usernameHeader = 'X-Remote-User';
const groupHeader = 'X-Remote-Group';
const extraHeaderPrefix = 'X-Remote-Extra-';

let processMaterial: FrontProxyMaterial | undefined;

function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`cannot create the front-proxy certificates with openssl (is it installed?): ${error instanceof Error ? error.message : String(error)}`);
  }
}

function generate(directory: string): void {
  const path = (name: string) => join(directory, name);
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...curve, '-keyout', path('front-proxy-ca.key'), '-out', path('front-proxy-ca.crt'), '-days', '3650', '-subj', '/CN=front-proxy-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  openssl(['req', '-new', ...curve, '-keyout', path('front-proxy-client.key'), '-out', path('front-proxy-client.csr'), '-subj', `/CN=${frontProxyClientName}`]);
  writeFileSync(path('front-proxy-client.ext'), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
  const serial = `0x${randomBytes(8).toString('hex')}`;
  openssl(['x509', '-req', '-in', path('front-proxy-client.csr'), '-CA', path('front-proxy-ca.crt'), '-CAkey', path('front-proxy-ca.key'), '-set_serial', serial, '-days', '3650', '-out', path('front-proxy-client.crt'), '-extfile', path('front-proxy-client.ext')]);
  // openssl writes with the umask's mode; a data directory's files are the server's alone.
  for (const name of readdirSync(directory)) if (name.startsWith('front-proxy-')) chmodSync(path(name), 0o600);
}

/**
 * The front-proxy CA and client certificate: kept in `directory` (a data directory's `tls`) so that
 * a restart keeps them, else made once per process (openssl takes a while; in-memory servers of
 * one process may share them).
 */
export function frontProxyMaterial(directory?: string): FrontProxyMaterial {
  if (directory === undefined && processMaterial) return processMaterial;
  const target = directory ?? mkdtempSync(join(tmpdir(), 'olm-front-proxy-'));
  mkdirSync(target, { recursive: true, mode: 0o700 });
  const files = ['front-proxy-ca.crt', 'front-proxy-client.crt', 'front-proxy-client.key'].map((name) => join(target, name));
  if (!files.every((file) => existsSync(file))) generate(target);
  const [caCertificate = '', clientCertificate = '', clientKey = ''] = files.map((file) => readFileSync(file, 'utf8'));
  const material = { caCertificate, clientCertificate, clientKey };
  if (directory === undefined) {
    rmSync(target, { recursive: true, force: true });
    processMaterial = material;
  }
  return material;
}

/**
 * Writes ConfigMap `kube-system/extension-apiserver-authentication` with the request-header
 * settings as kube-apiserver does (header names as JSON lists), and the Role
 * `extension-apiserver-authentication-reader` that lets aggregated API servers read it.
 */
export function publishAuthenticationConfig(cluster: Cluster, material: FrontProxyMaterial): void {
  const configMaps = cluster.registry.get('', 'configmaps');
  const roles = cluster.registry.get('rbac.authorization.k8s.io', 'roles');
  if (!configMaps || !roles) return;
  const name = 'extension-apiserver-authentication';
  const data = {
    'requestheader-allowed-names': JSON.stringify([frontProxyClientName]),
    'requestheader-client-ca-file': material.caCertificate,
    'requestheader-extra-headers-prefix': JSON.stringify([extraHeaderPrefix]),
    'requestheader-group-headers': JSON.stringify([groupHeader]),
    'requestheader-username-headers': JSON.stringify([usernameHeader]),
  };
  const existing = cluster.tryGet(configMaps, 'kube-system', name);
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'kube-system' }, data };
  if (!existing) cluster.create(configMaps, 'v1', 'kube-system', configMap, { fieldManager: 'kube-apiserver' });
  else if (JSON.stringify(existing['data']) !== JSON.stringify(data)) cluster.update(configMaps, 'v1', 'kube-system', name, { ...existing, data }, { fieldManager: 'kube-apiserver' });
  const reader = 'extension-apiserver-authentication-reader';
  if (!cluster.tryGet(roles, 'kube-system', reader)) {
    cluster.create(
      roles,
      'v1',
      'kube-system',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: reader, namespace: 'kube-system', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
        rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [name], verbs: ['get', 'list', 'watch'] }],
      },
      { fieldManager: 'kube-apiserver' },
    );
  }
}

/**
 * The headers naming the user to a backend (kube's `SetAuthProxyHeaders`), after any the client
 * sent are dropped: a client must not be able to name someone else.
 */
export function withAuthProxyHeaders(headers: OutgoingHttpHeaders, user: UserInfo): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [key, value] of Object.entries(headers)) {
    const lower = key.toLowerCase();
    if (lower === usernameHeader.toLowerCase() || lower === groupHeader.toLowerCase() || lower.startsWith(extraHeaderPrefix.toLowerCase())) continue;
    out[key] = value;
  }
  out[usernameHeader] = user.username;
  if (user.groups.length > 0) out[groupHeader] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) out[`${extraHeaderPrefix}${encodeURIComponent(key)}`] = [...values];
  return out;
}
