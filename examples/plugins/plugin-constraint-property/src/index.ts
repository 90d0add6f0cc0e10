export { createPropertyConstraintEvaluator, PROPERTY_CONSTRAINT_KIND } from './property-constraint-evaluator.js';
export { propertyConstraintPlugin } from './plugin.js';
