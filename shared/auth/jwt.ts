import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { LRUCache } from 'lru-cache';
import * as z from 'zod';
import { GatewayError } from '../http/errors.js';
import { InvalidSettingsError, settings } from '../settings.js';
import { WorkspaceRepository } from '../store/workspace-repository.js';
import { AuthenticationError, type FailedCaller } from './authentication-error.js';
import type { Principal } from './principal.js';
import { scopesGrantedByJwt } from './scopes.js';

export interface JwtOptions {
  /** Public keys of the issuer (RS*, PS*, ES*, EdDSA); wins over `secret` when both are set. */
  jwksUrl?: string;
  /** Shared HMAC secret (HS256/384/512). */
  secret?: string;
  issuer?: string;
  audience?: string;
  clockToleranceSeconds: number;
  /** Accept tokens without `exp` (GW_JWT_ALLOW_NO_EXP=ON); otherwise a token that never expires is refused. */
  allowNoExp?: boolean;
}

/**
 * The claims gw reads from a verified token. `sub` names the user; `organisation_id` and `workspace_id` say
 * where the token acts; `role: "admin"` lets it read every workspace of its organisation; `scope`
 * (space-separated, OAuth style) or `scopes` (array) carry the grants, of which only `read` and `list` count.
 */
const claimsSchema = z.object({
  sub: z.string().min(1).max(255),
  organisation_id: z.string().min(1).max(128),
  workspace_id: z.string().min(1).max(128),
  role: z.string().optional(),
  scope: z.string().optional(),
  scopes: z.array(z.string()).optional(),
});

const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'];
const WORKSPACE_CACHE_MS = 60_000;
const UNKNOWN_WORKSPACE_CACHE_MS = 2_000;

/**
 * Verifies `Authorization: Bearer <jwt>` on control-plane routes and turns the token into a read-only
 * principal. Every failure is a 401 AuthenticationError that names the organisation when the signature held,
 * so the failure can be audited where that organisation's admins look.
 */
export class JwtAuthenticator {
  private readonly key: JWTVerifyGetKey | Uint8Array | undefined;
  private readonly verifyOptions: JWTVerifyOptions;
  /** workspace id → its organisation (or null when unknown): a token's claims are checked against the store. */
  private readonly workspaceOwners = new LRUCache<string, { organisationId: string | null }>({ max: 10_000, ttl: WORKSPACE_CACHE_MS });

  constructor(
    options: JwtOptions = jwtOptionsFromSettings(),
    private readonly workspaces = new WorkspaceRepository(),
  ) {
    if (options.jwksUrl) this.key = createRemoteJWKSet(new URL(options.jwksUrl));
    else if (options.secret) this.key = new TextEncoder().encode(options.secret);
    this.verifyOptions = {
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: options.clockToleranceSeconds,
      algorithms: options.jwksUrl ? undefined : HMAC_ALGORITHMS,
      requiredClaims: options.allowNoExp ? [] : ['exp'],
    };
  }

  get configured(): boolean {
    return this.key !== undefined;
  }

  async authenticate(token: string): Promise<Principal> {
    if (!this.key) {
      throw new AuthenticationError('jwt_not_configured', 'JWT authentication is not configured on this deployment: send x-gw-api-key', { method: 'jwt' });
    }
    const payload = await this.verify(token, this.key);
    const parsed = claimsSchema.safeParse(payload);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AuthenticationError('jwt_claims_invalid', `The token's ${issue.path.join('.') || 'claims'} claim is missing or invalid`, callerFrom(payload));
    }
    const claims = parsed.data;
    const caller: FailedCaller = { method: 'jwt', organisationId: claims.organisation_id, workspaceId: claims.workspace_id, actorId: `jwt:${claims.sub}` };
    if ((await this.organisationOf(claims.workspace_id)) !== claims.organisation_id) {
      throw new AuthenticationError('jwt_claims_invalid', "The token's workspace_id does not name a workspace of its organisation_id", caller);
    }
    const grants = [...(claims.scope?.split(/\s+/).filter(Boolean) ?? []), ...(claims.scopes ?? [])];
    return {
      keyId: `jwt:${claims.sub}`,
      kind: claims.role === 'admin' ? 'admin' : 'workspace',
      organisationId: claims.organisation_id,
      workspaceId: claims.workspace_id,
      userId: claims.sub,
      scopes: scopesGrantedByJwt(grants),
      expiresAt: typeof payload.exp === 'number' ? new Date(payload.exp * 1000).toISOString() : undefined,
      authMethod: 'jwt',
    };
  }

  private async verify(token: string, key: JWTVerifyGetKey | Uint8Array): Promise<JWTPayload> {
    try {
      const { payload } =
        key instanceof Uint8Array ? await jwtVerify(token, key, this.verifyOptions) : await jwtVerify(token, key, this.verifyOptions);
      return payload;
    } catch (error) {
      throw toAuthenticationError(error);
    }
  }

  private async organisationOf(workspaceId: string): Promise<string | null> {
    const cached = this.workspaceOwners.get(workspaceId);
    if (cached) return cached.organisationId;
    const workspace = await this.workspaces.getWorkspace(workspaceId);
    const organisationId = workspace?.organisation_id ?? null;
    // An unknown workspace is remembered only briefly: it may be created a moment later.
    this.workspaceOwners.set(workspaceId, { organisationId }, { ttl: organisationId ? WORKSPACE_CACHE_MS : UNKNOWN_WORKSPACE_CACHE_MS });
    return organisationId;
  }
}

const MIN_SECRET_LENGTH = 32;

/** The JWT settings; a shared secret shorter than 256 bits stops the start (without echoing it). */
export function jwtOptionsFromSettings(): JwtOptions {
  const current = settings();
  if (current.GW_JWT_SECRET !== undefined && current.GW_JWT_SECRET.length < MIN_SECRET_LENGTH) {
    throw new InvalidSettingsError([`GW_JWT_SECRET: must be at least ${MIN_SECRET_LENGTH} characters (256 bits) for HS256 (value not shown)`]);
  }
  return {
    jwksUrl: current.GW_JWT_JWKS_URL,
    secret: current.GW_JWT_SECRET,
    issuer: current.GW_JWT_ISSUER,
    audience: current.GW_JWT_AUDIENCE,
    clockToleranceSeconds: current.GW_JWT_CLOCK_TOLERANCE_S,
    allowNoExp: current.GW_JWT_ALLOW_NO_EXP,
  };
}

/** Claims of a token whose signature held but whose claims failed: trusted enough to file the failure under. */
function callerFrom(payload: JWTPayload | undefined): FailedCaller {
  const organisationId = typeof payload?.organisation_id === 'string' ? payload.organisation_id : undefined;
  const workspaceId = typeof payload?.workspace_id === 'string' ? payload.workspace_id : undefined;
  const actorId = typeof payload?.sub === 'string' ? `jwt:${payload.sub}` : undefined;
  return { method: 'jwt', organisationId, workspaceId, actorId };
}

function toAuthenticationError(error: unknown): GatewayError {
  if (error instanceof errors.JWTExpired) return new AuthenticationError('jwt_expired', 'The token has expired', callerFrom(error.payload));
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp' && error.reason === 'missing') {
    return new AuthenticationError('jwt_exp_required', 'The token has no exp claim; tokens that never expire are refused (GW_JWT_ALLOW_NO_EXP)', callerFrom(error.payload));
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new AuthenticationError('jwt_claims_invalid', `The token's ${error.claim} claim is invalid (${error.reason})`, callerFrom(error.payload));
  }
  if (error instanceof errors.JWKSTimeout) {
    return new GatewayError(503, 'jwks_unavailable', 'The key set used to verify tokens could not be fetched in time; retry shortly', { cause: error });
  }
  // No organisation here on purpose: the claims of a token whose signature failed are the sender's word only, so
  // the failure must not be filed under the organisation it names (shared/audit/authentication-failures.ts).
  if (error instanceof errors.JOSEError) return new AuthenticationError('jwt_invalid', 'The token is malformed or its signature does not verify', { method: 'jwt' });
  // Anything else (the JWKS endpoint refused or is unreachable) is gw's problem, not the caller's.
  return new GatewayError(503, 'jwks_unavailable', 'The key set used to verify tokens could not be fetched; retry shortly', { cause: error });
}
