import { runDistribution } from '@olm/olm';
import { v1Distribution } from './distribution.js';

process.exitCode = await runDistribution(v1Distribution, process.argv.slice(2));
