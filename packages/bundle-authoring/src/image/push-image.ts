import { BundleImageErrorCodes, createOciRegistryPusher, parseImageReference, type OciRegistryClientOptions, type PushOptions } from '@olm/bundle-puller/registry';
import { OlmError } from '@olm/core';
import { pushContentOf, type OciImage } from './oci-image.js';

/**
 * Pushes a built image to `reference` (`registry/repository:tag`) with the bundle puller's registry
 * requests; answers the manifest digest. A registry that wants other credentials is reported in
 * push words (the registry client's own messages speak of pulls and pull secrets).
 */
export async function pushOciImage(image: OciImage, reference: string, options: OciRegistryClientOptions & PushOptions = {}): Promise<{ digest: string }> {
  const pusher = createOciRegistryPusher({ userAgent: 'olm', ...options });
  try {
    return await pusher.pushImage(reference, pushContentOf(image), options);
  } catch (error) {
    if (!(error instanceof OlmError) || error.code !== BundleImageErrorCodes.unauthorized) throw error;
    const { registry } = parseImageReference(reference);
    const given = options.credentials ?? [];
    throw new OlmError(
      error.code,
      `not allowed to push ${reference}: registry ${registry} asks for credentials and ${given.length === 0 ? 'none were given' : `refused those of ${[...new Set(given.map((credential) => credential.source))].join(', ')}`}; ` +
        `give credentials for ${registry} that may push to this repository (the olm CLI reads a docker config.json: --registry-config FILE, else $REGISTRY_AUTH_FILE, else ~/.docker/config.json)`,
      { cause: error },
    );
  }
}
