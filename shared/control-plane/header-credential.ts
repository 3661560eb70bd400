import * as z from 'zod';
import { HEADER_CREDENTIAL, HEADER_CREDENTIAL_MESSAGE } from '../gateway/config/credential-fields.js';

/**
 * A stored credential that gw later sends in an HTTP header (a virtual key's or integration's key, an MCP
 * server's token or header value, AWS keys): refused at creation when a header cannot carry it, rather than
 * accepted and then failing every call with 502 (gateway/config/credential-fields.ts).
 */
export const headerCredentialText = (max: number) => z.string().min(1).max(max).regex(HEADER_CREDENTIAL, HEADER_CREDENTIAL_MESSAGE);
