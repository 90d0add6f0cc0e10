import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A self-signed serving certificate for 127.0.0.1 and localhost, made with the `openssl` CLI
 * (present on Debian and macOS; Node has no X.509 writer). Kept in `directory` when given so that a
 * restart serves the same certificate and existing kubeconfigs stay valid.
 */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

export function selfSignedCertificate(directory?: string): TlsMaterial {
  const target = directory ?? mkdtempSync(join(tmpdir(), 'olm-apiserver-tls-'));
  mkdirSync(target, { recursive: true, mode: 0o700 });
  const certPath = join(target, 'apiserver.crt');
  const keyPath = join(target, 'apiserver.key');
  if (!existsSync(certPath) || !existsSync(keyPath)) {
    try {
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '3650', '-subj', '/CN=olm-local-apiserver', '-addext', 'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost'],
        { stdio: 'pipe' },
      );
      // openssl writes the key with the umask's mode.
      chmodSync(keyPath, 0o600);
      chmodSync(certPath, 0o600);
    } catch (error) {
      throw new Error(`cannot create a self-signed certificate with openssl (is it installed?): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const material = { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  if (directory === undefined) rmSync(target, { recursive: true, force: true });
  return material;
}
