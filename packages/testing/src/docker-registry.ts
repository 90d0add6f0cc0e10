import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeLoopbackPort } from './free-port.js';

/** The Debian docker-registry binary (`$DOCKER_REGISTRY` wins), or undefined when it cannot run here. */
export function dockerRegistryBinary(): string | undefined {
  const binary = process.env['DOCKER_REGISTRY'] ?? 'docker-registry';
  try {
    execFileSync(binary, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return binary;
  } catch {
    return undefined;
  }
}

export interface DockerRegistry {
  readonly host: string;
  readonly url: string;
  /** Where blobs are stored (`docker/registry/v2/blobs/sha256/<ab>/<hex>/data`), to corrupt one on purpose. */
  readonly storage: string;
  /** Freezes and thaws the process (SIGSTOP/SIGCONT): requests hang meanwhile. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/**
 * An htpasswd line for the registry's basic authentication (bcrypt, which distribution requires),
 * hashed by perl's crypt (libxcrypt); undefined when this machine's crypt cannot do bcrypt.
 */
export function htpasswdLine(user: string, password: string): string | undefined {
  try {
    const salt = `$2b$05$${randomBytes(16).toString('base64').replace(/[^A-Za-z0-9]/g, '.').slice(0, 22)}`;
    const hash = execFileSync('perl', ['-e', 'print crypt($ARGV[0], $ARGV[1])', password, salt], { encoding: 'utf8', timeout: 10_000 });
    return hash.startsWith('$2b$') ? `${user}:${hash}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A real registry (distribution's `registry serve`) on 127.0.0.1 with filesystem storage in
 * `directory`. `auth` turns on token authentication: clients must fetch a token from `realm`;
 * `htpasswd` (a file of `htpasswdLine`s) turns on basic authentication.
 */
export async function startDockerRegistry(
  binary: string,
  directory: string,
  options: { port?: number; auth?: { realm: string; service: string; issuer: string; rootCertBundle: string }; htpasswd?: string } = {},
): Promise<DockerRegistry> {
  const port = options.port ?? (await freeLoopbackPort());
  const storage = join(directory, 'storage');
  mkdirSync(storage, { recursive: true });
  const config = join(directory, `config-${port}.yml`);
  const auth = options.auth
    ? `auth:\n  token:\n    realm: ${options.auth.realm}\n    service: ${options.auth.service}\n    issuer: ${options.auth.issuer}\n    rootcertbundle: ${options.auth.rootCertBundle}\n`
    : options.htpasswd
      ? `auth:\n  htpasswd:\n    realm: olm-test-registry\n    path: ${options.htpasswd}\n`
      : '';
  writeFileSync(
    config,
    `version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: ${storage}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:${port}\n${auth}`,
  );
  const child: ChildProcess = spawn(binary, ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}: ${stderr}`);
    try {
      const response = await fetch(`${url}/v2/`);
      if (response.status === 200 || response.status === 401) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`docker-registry did not listen on ${url}: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    host: `127.0.0.1:${port}`,
    url,
    storage,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
