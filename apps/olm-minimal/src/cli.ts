import { runDistribution } from '@olm/olm';
import { minimalDistribution } from './distribution.js';

process.exitCode = await runDistribution(minimalDistribution, process.argv.slice(2));
