export * from './cdcl-backend.js';
export * from './at-most-one.js';
export * from './plugin.js';
export { CdclEngine, luby, type EngineOutcome, type EngineStatistics } from './cdcl-engine.js';
