/**
 * The longest id gw accepts from a caller, in characters, wherever it comes: a path segment, a body field
 * (`previous_response_id`, a config's `virtual_key`, …) or a header. Every id gw hands out (UUIDs, `resp_…`,
 * slugs, SCIM URNs, `<provider>/<model>` names) is far shorter; a longer one can only be wrong, and used as a
 * DynamoDB key (2 KB partition, 1 KB sort key) it would fail the store call as a 500 instead of a 400.
 */
export const MAX_ID_CHARS = 256;
