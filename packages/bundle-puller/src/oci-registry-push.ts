import { OlmError } from '@olm/core';
import type { Response } from 'undici';
import { BundleImageErrorCodes } from './bundle-image-errors.js';
import { parseImageReference } from './image-reference.js';
import { sha256Digest } from './oci-content.js';
import type { OciRegistryClientOptions } from './oci-registry-client.js';
import type { RegistryCredential } from './registry-credentials.js';
import { createRegistryRequests, type PullSession, type RegistryRequests } from './registry-requests.js';

/** One blob of an image to push (a layer or the configuration). */
export interface PushBlob {
  readonly digest: string;
  readonly bytes: Buffer;
}

/** What `pushImage` sends: the blobs the manifest names, then the manifest itself under the reference's tag (or digest). */
export interface PushContent {
  readonly blobs: readonly PushBlob[];
  readonly manifest: Buffer;
  readonly manifestMediaType: string;
}

export interface PushProgress {
  /** The blob (or `manifest`) being sent, its bytes, and whether the registry already had it. */
  readonly what: string;
  readonly bytes: number;
  /** How many of its bytes were handed to the connection so far (0 when it starts, `bytes` when it is sent). */
  readonly sent: number;
  readonly skipped: boolean;
  /** Blobs (and the manifest) finished before this one, of `total`. */
  readonly done: number;
  readonly total: number;
}

export interface PushOptions {
  readonly signal?: AbortSignal;
  /** Credentials for the image's registry, most specific first; anonymous when empty. */
  readonly credentials?: readonly RegistryCredential[];
  /** Called when each blob starts (`sent` 0, or its size when the registry has it), after each 1 MiB of it, and before the manifest. */
  readonly onProgress?: (progress: PushProgress) => void;
}

export interface OciRegistryPusher {
  /** Pushes the blobs the registry does not have yet (`HEAD` first), then the manifest; answers the manifest's digest. */
  pushImage(image: string, content: PushContent, options?: PushOptions): Promise<{ readonly digest: string }>;
}

/** The start of a body (at most 4 KiB are read, whatever the registry sends), for a message. */
async function startOfBody(response: Response): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of response.body ?? []) {
      chunks.push(Buffer.from(chunk));
      length += chunk.byteLength;
      if (length >= 4096) break;
    }
  } catch {
    // a body cut short still explains what it can
  }
  return Buffer.concat(chunks).subarray(0, 4096).toString('utf8');
}

/** The error of a push request the registry refused: its status, its `errors[]`, and what to check. */
export async function pushFailure(response: Response, image: string, what: string): Promise<OlmError> {
  const text = await startOfBody(response);
  let detail = text.slice(0, 200);
  try {
    detail = ((JSON.parse(text) as { errors?: Array<{ code?: string; message?: string }> }).errors ?? []).map((error) => [error.code, error.message].filter(Boolean).join(': ')).join('; ');
  } catch {
    // not JSON: the start of the body
  }
  const hint =
    response.status === 401 || response.status === 403
      ? '; give credentials for this registry that may push to this repository'
      : response.status === 404
        ? '; check that the repository exists and that this registry allows pushes to it'
        : '';
  return new OlmError(BundleImageErrorCodes.registryError, `pushing ${image}: the registry answered HTTP ${response.status}${detail ? ` (${detail})` : ''} for ${what}${hint}`, {
    details: { status: response.status },
  });
}

const sliceBytes = 1024 * 1024;

/** The bytes in 1 MiB slices, telling `onSent` how many went out so far. */
async function* slices(bytes: Buffer, onSent: (sent: number) => void): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += sliceBytes) {
    yield bytes.subarray(offset, offset + sliceBytes);
    onSent(Math.min(bytes.length, offset + sliceBytes));
  }
}

/**
 * Sends one blob with the monolithic upload: `POST …/blobs/uploads/`, then `PUT <Location>?digest=…`
 * with the bytes `body` streams (after the `POST`, so a challenge never needs the stream twice).
 */
export async function uploadBlob(requests: RegistryRequests, session: PullSession, digest: string, body: () => AsyncIterable<Uint8Array>): Promise<void> {
  const what = `blob ${digest}`;
  const started = await requests.send(session, 'blobs/uploads/', { method: 'POST' });
  const location = started.headers.get('location');
  if (started.status !== 202 || !location) throw await pushFailure(started, session.imageText, `the upload of ${what}`);
  await started.body?.cancel();
  const separator = location.includes('?') ? '&' : '?';
  const put = await requests.send(session, `${location}${separator}digest=${encodeURIComponent(digest)}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/octet-stream' },
    body,
  });
  if (put.status !== 201) throw await pushFailure(put, session.imageText, what);
  await put.body?.cancel();
}

/** The registry requests of a client with these options (the pull, push and transfer clients share them). */
export function registryRequestsOf(options: OciRegistryClientOptions, userAgent: string): RegistryRequests {
  return createRegistryRequests({
    timeoutMs: options.requestTimeoutMs ?? 60_000,
    userAgent: options.userAgent ?? userAgent,
    ...(options.insecureRegistries ? { insecureRegistries: options.insecureRegistries } : {}),
    ...(options.proxy ? { proxy: options.proxy } : {}),
  });
}

/**
 * A client that pushes images with the OCI distribution API (the registry client's requests: same
 * proxies, timeouts, `http` for loopback and `insecureRegistries`, `Basic`/`Bearer` challenges).
 */
export function createOciRegistryPusher(options: OciRegistryClientOptions = {}): OciRegistryPusher {
  const requests = registryRequestsOf(options, 'olm');
  return {
    async pushImage(imageText, content, pushOptions = {}) {
      const image = parseImageReference(imageText);
      const session: PullSession = { image, imageText, credentials: pushOptions.credentials ?? [], signal: pushOptions.signal ?? new AbortController().signal };
      const digest = sha256Digest(content.manifest);
      if (image.digest && image.digest !== digest) {
        throw new OlmError(BundleImageErrorCodes.digestMismatch, `cannot push to ${imageText}: the image built has digest ${digest}; push it by tag, or by that digest`);
      }
      const total = content.blobs.length + 1;
      for (const [index, blob] of content.blobs.entries()) {
        const head = await requests.send(session, `blobs/${blob.digest}`, { method: 'HEAD' });
        await head.body?.cancel();
        const skipped = head.status === 200;
        const report = (sent: number) => pushOptions.onProgress?.({ what: `blob ${blob.digest}`, bytes: blob.bytes.length, sent, skipped, done: index, total });
        report(skipped ? blob.bytes.length : 0);
        if (!skipped) await uploadBlob(requests, session, blob.digest, () => slices(blob.bytes, report));
      }
      pushOptions.onProgress?.({ what: 'manifest', bytes: content.manifest.length, sent: 0, skipped: false, done: content.blobs.length, total });
      const put = await requests.send(session, `manifests/${image.reference}`, {
        method: 'PUT',
        headers: { 'Content-Type': content.manifestMediaType },
        body: content.manifest,
      });
      if (put.status !== 201) throw await pushFailure(put, imageText, `manifest ${image.reference}`);
      await put.body?.cancel();
      return { digest };
    },
  };
}
