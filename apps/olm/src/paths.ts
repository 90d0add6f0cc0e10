import { fileURLToPath } from 'node:url';

// This file sits one level below apps/olm both as source (src/) and bundled (dist/cli.js).
/** The example catalog shipped with the project (`examples/catalog`). */
export const exampleCatalogDirectory = fileURLToPath(new URL('../../../examples/catalog', import.meta.url));
/** The plain install manifests (`deploy/`): `olm up` runs its controllers with the RBAC they grant. */
export const deployDirectory = fileURLToPath(new URL('../../../deploy', import.meta.url));
