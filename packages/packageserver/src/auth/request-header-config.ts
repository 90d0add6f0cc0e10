import { X509Certificate } from 'node:crypto';
import { type CachedObject, describeError, type KubeClient, type Logger } from '@olm/core';

/**
 * Who may assert a user with request headers (the aggregator's front proxy), as kube-apiserver
 * publishes it in ConfigMap `kube-system/extension-apiserver-authentication`.
 */
export interface RequestHeaderConfig {
  /** `requestheader-client-ca-file`: the CAs a front-proxy client certificate must be signed by. */
  readonly certificateAuthorities: readonly X509Certificate[];
  /** `requestheader-allowed-names`: the client certificate's common names accepted; empty for any. */
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly uidHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

export const authenticationConfigMap = { namespace: 'kube-system', name: 'extension-apiserver-authentication' } as const;

function stringList(data: Readonly<Record<string, string>>, key: string): string[] {
  const raw = data[key];
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`ConfigMap ${authenticationConfigMap.namespace}/${authenticationConfigMap.name} key ${key} is not a JSON list of strings: ${raw.slice(0, 100)}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((entry) => typeof entry === 'string')) {
    throw new Error(`ConfigMap ${authenticationConfigMap.namespace}/${authenticationConfigMap.name} key ${key} is not a JSON list of strings: ${raw.slice(0, 100)}`);
  }
  return parsed;
}

/** The certificates of a PEM bundle. */
export function parseCertificateBundle(pem: string, where: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${where} holds no PEM certificate`);
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      throw new Error(`${where} holds a certificate that does not parse: ${describeError(error)}`);
    }
  });
}

/** The request-header settings of the ConfigMap's data, or undefined when it names no CA (request headers then authenticate nobody). */
export function parseRequestHeaderConfig(data: Readonly<Record<string, string>>): RequestHeaderConfig | undefined {
  const pem = data['requestheader-client-ca-file'];
  if (pem === undefined || pem.trim() === '') return undefined;
  const usernameHeaders = stringList(data, 'requestheader-username-headers');
  if (usernameHeaders.length === 0) return undefined;
  return {
    certificateAuthorities: parseCertificateBundle(pem, `ConfigMap ${authenticationConfigMap.namespace}/${authenticationConfigMap.name} key requestheader-client-ca-file`),
    allowedNames: stringList(data, 'requestheader-allowed-names'),
    usernameHeaders: usernameHeaders.map((name) => name.toLowerCase()),
    uidHeaders: stringList(data, 'requestheader-uid-headers').map((name) => name.toLowerCase()),
    groupHeaders: stringList(data, 'requestheader-group-headers').map((name) => name.toLowerCase()),
    extraHeaderPrefixes: stringList(data, 'requestheader-extra-headers-prefix').map((name) => name.toLowerCase()),
  };
}

export interface RequestHeaderConfigSource {
  current(): RequestHeaderConfig | undefined;
  stop(): void;
}

/**
 * Reads the ConfigMap at start and again every `refreshMs`, as k8s.io/apiserver's request-header
 * controller follows it (a rotated front-proxy CA applies without a restart). A GET by name, so
 * the `extension-apiserver-authentication-reader` Role (limited to that name) is enough. While it
 * cannot be read, the last good settings stay.
 */
export async function followRequestHeaderConfig(client: KubeClient, refreshMs: number, logger: Logger): Promise<RequestHeaderConfigSource> {
  let config: RequestHeaderConfig | undefined;
  let lastProblem = '';
  const read = async (): Promise<void> => {
    try {
      const configMap = await client.find<CachedObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', ...authenticationConfigMap });
      config = parseRequestHeaderConfig(configMap?.data ?? {});
      lastProblem = '';
    } catch (error) {
      const problem = describeError(error);
      if (problem !== lastProblem) {
        logger.warn('cannot read the request-header authentication settings; front-proxy requests keep the last good ones', { configMap: `${authenticationConfigMap.namespace}/${authenticationConfigMap.name}`, error: problem });
      }
      lastProblem = problem;
    }
  };
  await read();
  if (!config) logger.warn('no request-header CA published; requests through an aggregator front proxy are not trusted until it is', { configMap: `${authenticationConfigMap.namespace}/${authenticationConfigMap.name}` });
  const timer = setInterval(() => void read(), refreshMs);
  timer.unref();
  return { current: () => config, stop: () => clearInterval(timer) };
}
