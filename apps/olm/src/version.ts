import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// package.json sits one level above both src/ (tests) and dist/ (the built CLI).
export const cliVersion: string = (require('../package.json') as { version: string }).version;
