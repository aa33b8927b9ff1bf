// Request limits, documented in README. Past them the API answers 413 or 400
// with a message instead of taking work it cannot finish.

/** Largest JSON request body; larger answers 413. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Artifacts in one POST /v1/artifacts; more answers 413. */
export const MAX_ARTIFACTS_PER_REQUEST = 10_000;
// Bytes of one artifact's `raw`; a larger item is rejected. Defined with the topic, which the syslog listeners share.
export { MAX_RAW_BYTES } from '../topics/artifacts.js';
/** Bytes of one artifact's `metadata` as JSON. */
export const MAX_METADATA_BYTES = 16 * 1024;
