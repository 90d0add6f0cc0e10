import { createOciRegistryPusher, type OciRegistryClientOptions, type PushOptions } from '@olm/bundle-puller/registry';
import { pushContentOf, type OciImage } from './oci-image.js';

/** Pushes a built image to `reference` (`registry/repository:tag`) with the bundle puller's registry requests; answers the manifest digest. */
export async function pushOciImage(image: OciImage, reference: string, options: OciRegistryClientOptions & PushOptions = {}): Promise<{ digest: string }> {
  const pusher = createOciRegistryPusher({ userAgent: 'olm', ...options });
  return pusher.pushImage(reference, pushContentOf(image), options);
}
