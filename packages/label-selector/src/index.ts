export {
  isValidLabelKey,
  isValidLabelValue,
  LabelSelectorError,
  matchesRequirement,
  parseLabelSelector,
  selectorFromLabels,
  selectorOf,
  type LabelOperator,
  type LabelRequirement,
  type Selector,
} from './label-selector.js';
export {
  isEmptyLabelSelector,
  labelSelectorAsSelector,
  labelSelectorText,
  matchesLabelSelector,
  selectorText,
  type LabelSelector,
  type LabelSelectorRequirement,
  type LabelSelectorView,
} from './label-selector-object.js';
