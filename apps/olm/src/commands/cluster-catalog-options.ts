import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ControllerClusterCatalogPluginOptions } from '@olm/controller-cluster-catalog';
import type { Command } from 'commander';
import { inputError, usageError } from '../cli-errors.js';
import { collect, parsePort } from '../option-parsers.js';

export interface ClusterCatalogFlagValues {
  readonly catalogDirectory: string[];
  readonly catalogServerAddress?: string;
  readonly catalogServerUrl?: string;
  readonly catalogServerCertDir?: string;
  readonly catalogCacheDir?: string;
}

/** The ClusterCatalog controller's flags (`olm run`): where its content server listens, the URL clients use, its certificate, catalog directories. */
export function addClusterCatalogOptions(command: Command): Command {
  return command
    .option('--catalog-directory <name=dir>', 'a file-based catalog directory ClusterCatalogs annotated olm.operatorframework.io/source-directory: <name> are served from (repeatable)', collect, [])
    .option('--catalog-server-address <host:port>', 'where the ClusterCatalog content server (catalogd\'s HTTPS API) listens (default 127.0.0.1, a free port)')
    .option('--catalog-server-url <url>', 'the URL clients reach that server at, e.g. https://catalogd-service.olm.svc:8443 (status.urls.base is <url>/catalogs/<name>; default the server\'s own)')
    .option('--catalog-server-cert-dir <dir>', 'a directory with tls.crt and tls.key (a mounted kubernetes.io/tls Secret) the server serves (default a self-signed certificate for localhost)')
    .option('--catalog-cache-dir <dir>', 'where ClusterCatalog content is kept on disk (default a temporary directory; give a writable volume when the root filesystem is read-only)');
}

/** The plugin options of the flags; undefined when none is given. */
export async function clusterCatalogOptionsOf(flags: ClusterCatalogFlagValues): Promise<ControllerClusterCatalogPluginOptions | undefined> {
  const directories: Record<string, string> = {};
  for (const entry of flags.catalogDirectory) {
    const [name, directory] = [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)];
    if (!entry.includes('=') || name === '' || directory === '') throw usageError(`--catalog-directory ${JSON.stringify(entry)}: give NAME=DIR, e.g. --catalog-directory acme=/catalogs/acme`);
    directories[name] = resolve(directory);
  }
  const server = { ...address(flags.catalogServerAddress), ...(flags.catalogServerCertDir !== undefined ? { tls: await certificate(flags.catalogServerCertDir) } : {}) };
  const options: ControllerClusterCatalogPluginOptions = {
    ...(Object.keys(directories).length > 0 ? { directories } : {}),
    ...(Object.keys(server).length > 0 ? { server } : {}),
    ...(flags.catalogServerUrl !== undefined ? { baseUrl: baseUrl(flags.catalogServerUrl) } : {}),
    ...(flags.catalogCacheDir !== undefined ? { cacheDirectory: resolve(flags.catalogCacheDir) } : {}),
  };
  return Object.keys(options).length > 0 ? options : undefined;
}

function address(value: string | undefined): { host?: string; port?: number } {
  if (value === undefined) return {};
  const colon = value.lastIndexOf(':');
  if (colon <= 0) throw usageError(`--catalog-server-address ${JSON.stringify(value)}: give HOST:PORT, e.g. 0.0.0.0:8443`);
  return { host: value.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: parsePort(value.slice(colon + 1)) };
}

function baseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`--catalog-server-url ${JSON.stringify(value)}: not a URL; give e.g. https://catalogd-service.olm.svc:8443`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw usageError(`--catalog-server-url ${JSON.stringify(value)}: the scheme must be https (or http)`);
  return value;
}

async function certificate(directory: string): Promise<{ cert: string; key: string }> {
  try {
    const [cert, key] = await Promise.all([readFile(join(directory, 'tls.crt'), 'utf8'), readFile(join(directory, 'tls.key'), 'utf8')]);
    return { cert, key };
  } catch (error) {
    throw inputError(`--catalog-server-cert-dir ${directory}: cannot read tls.crt and tls.key there (${(error as Error).message}); mount a kubernetes.io/tls Secret there`, error);
  }
}
