export * from './json.js';
export * from './install-plan-approval.js';
export * from './subscription-explanation.js';
