import type { FbcBundle } from '@olm/registry';

/** Renders one bundle image to its `olm.bundle` (pulled from its registry: `renderImage`). */
export type BundleRenderer = (image: string) => Promise<FbcBundle>;

/** Each distinct image rendered once, in the order first named, at most `limit` of them. */
export async function renderBundleImages(images: readonly string[], renderBundle: BundleRenderer): Promise<Map<string, FbcBundle>> {
  const rendered = new Map<string, FbcBundle>();
  for (const image of images) if (!rendered.has(image)) rendered.set(image, await renderBundle(image));
  return rendered;
}
