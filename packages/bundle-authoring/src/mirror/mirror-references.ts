import { parseImageReference } from '@olm/bundle-puller/registry';
import type { DeclarativeConfig } from '@olm/registry';

/** An image of the catalog to copy: where it is (its repository and tag or digest) and where it goes. */
export interface MirroredImage {
  /** As the catalog writes it. */
  readonly original: string;
  /** `registry/path`, as the registry client addresses it (Docker Hub's API host for docker.io). */
  readonly sourceRepository: string;
  /** What the catalog names before the tag or digest (`docker.io/library/nginx`), for the mirror configuration. */
  readonly sourceName: string;
  /** A tag or a digest. */
  readonly reference: string;
  readonly tag?: string;
  /** `<to>/<path>`: the source's repository path below the target registry (and its path prefix, if any). */
  readonly targetRepository: string;
  /** Pulled by the cluster at run time (an operand or related image), not only by OLM (the bundle image). */
  readonly runtime: boolean;
}

/** `registry/path/repo` of a reference, without tag or digest, as written. */
function nameOf(reference: string): string {
  const withoutDigest = reference.split('@')[0]!;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

export function mirroredImage(original: string, to: string, runtime: boolean): MirroredImage {
  const parsed = parseImageReference(original);
  const tag = parsed.digest ? undefined : parsed.reference;
  return {
    original,
    sourceRepository: `${parsed.registry}/${parsed.repository}`,
    sourceName: nameOf(original),
    reference: parsed.reference,
    ...(tag !== undefined ? { tag } : {}),
    targetRepository: `${to.replace(/\/+$/, '')}/${parsed.repository}`,
    runtime,
  };
}

/** Every image the catalog's bundles name (bundle images, then related images), once each. */
export function catalogImages(config: DeclarativeConfig, to: string): MirroredImage[] {
  const images = new Map<string, MirroredImage>();
  const bundleImages = new Set(config.bundles.map((bundle) => bundle.image).filter((image) => image !== ''));
  for (const image of bundleImages) images.set(image, mirroredImage(image, to, false));
  for (const bundle of config.bundles) {
    for (const { image } of bundle.relatedImages) if (image !== '' && !images.has(image)) images.set(image, mirroredImage(image, to, !bundleImages.has(image)));
  }
  return [...images.values()];
}

/** The catalog with every bundle and related image pointing at its copy, by digest (`rewrites`: original → new reference). */
export function rewriteReferences(config: DeclarativeConfig, rewrites: ReadonlyMap<string, string>): DeclarativeConfig {
  const rewrite = (image: string) => rewrites.get(image) ?? image;
  return {
    ...config,
    bundles: config.bundles.map((bundle) => ({ ...bundle, image: rewrite(bundle.image), relatedImages: bundle.relatedImages.map((related) => ({ ...related, image: rewrite(related.image) })) })),
  };
}
