import { OlmError } from '@olm/core';
import { BundleImageErrorCodes } from './bundle-image-errors.js';

/** `registry/repository:tag` or `…@sha256:…`, split the way the distribution API needs it. */
export interface ImageReference {
  /** Host (and port) as written, with Docker Hub's API host for `docker.io`. */
  readonly registry: string;
  readonly repository: string;
  /** A tag or a digest: what goes after `/manifests/`. */
  readonly reference: string;
  readonly digest?: string;
}

/**
 * Splits an image pull spec as Docker does: the first component is a registry when it has a `.`
 * or `:` or is `localhost`, else the image is on Docker Hub (`library/` for one-component names);
 * no tag and no digest means `latest`.
 */
export function parseImageReference(text: string): ImageReference {
  const invalid = (why: string) =>
    new OlmError(BundleImageErrorCodes.invalidReference, `invalid bundle image reference ${JSON.stringify(text)}: ${why}; fix the bundle's image in the catalog`);
  if (text.trim() === '' || /\s/.test(text)) throw invalid('it is empty or contains spaces');
  let rest = text;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(digest)) throw invalid(`${JSON.stringify(digest)} is not a digest`);
  }
  const slash = rest.indexOf('/');
  const first = slash === -1 ? '' : rest.slice(0, slash);
  let registry = 'docker.io';
  if (first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost' || first.startsWith('['))) {
    registry = first;
    rest = rest.slice(slash + 1);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon !== -1) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!/^[\w][\w.-]{0,127}$/.test(tag)) throw invalid(`${JSON.stringify(tag)} is not a valid tag`);
  }
  let repository = rest;
  if (!/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(repository)) {
    throw invalid(`repository ${JSON.stringify(repository)} must be lowercase path components`);
  }
  if (registry === 'docker.io' || registry === 'index.docker.io') {
    registry = 'registry-1.docker.io';
    if (!repository.includes('/')) repository = `library/${repository}`;
  }
  return { registry, repository, reference: digest ?? tag ?? 'latest', ...(digest ? { digest } : {}) };
}
