export * from './logic-solver-backend.js';
export * from './plugin.js';
