export { goQuote } from './quote.js';
export { goList, goQuoteList, goTypeName } from './fmt-verbs.js';
export { compareStrings } from './compare-strings.js';
export { GoStruct, goJson, goStruct, jsonKind, sortMapKeys, type GoJsonOptions } from './json.js';
export { formatGoDuration, parseGoDuration } from './duration.js';
export { humanDuration, timestampAge } from './human-duration.js';
export { formatMicroTime, formatTime, nowTime } from './time.js';
export { emitGoYaml } from './yaml-emitter.js';
export { compareYamlKeys } from './yaml-scalar-analysis.js';
