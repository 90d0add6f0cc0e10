// Writes dist/crds.yaml, the static CRD manifest for GitOps (deploy/README.md): exactly what
// `olm crds` prints, rendered by the entry tsup just built. Part of `pnpm build`; not committed.
import { writeFile } from 'node:fs/promises';

const { renderCrdsYaml } = await import(new URL('../dist/index.js', import.meta.url).href);
const target = new URL('../dist/crds.yaml', import.meta.url);
await writeFile(target, renderCrdsYaml());
