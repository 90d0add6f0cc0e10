// Go durations are an API field format (registryPoll.interval, OLMConfig packageServerSyncInterval): they live in @olm/api.
export { formatGoDuration, parseGoDuration } from '@olm/api';
