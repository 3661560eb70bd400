import { badRequest, GatewayError } from '../../http/errors.js';
import { isRecord, numberField, stringField } from '../common/json-guards.js';

/**
 * OpenAI's image generation request → Stability AI's Stable Image API (`POST /v2beta/stable-image/generate/<service>`,
 * multipart/form-data, `accept: application/json` so the image comes back base64 in JSON).
 */
export const DEFAULT_STABILITY_MODEL = 'stable-image-core';

/** gw model names → Stability's service path and, for SD3.5, the `model` field it takes. */
const SERVICES: Record<string, { service: string; model?: string }> = {
  'stable-image-core': { service: 'core' },
  'stable-image-ultra': { service: 'ultra' },
  'sd3.5-large': { service: 'sd3', model: 'sd3.5-large' },
  'sd3.5-large-turbo': { service: 'sd3', model: 'sd3.5-large-turbo' },
  'sd3.5-medium': { service: 'sd3', model: 'sd3.5-medium' },
  'sd3.5-flash': { service: 'sd3', model: 'sd3.5-flash' },
};
export const STABILITY_MODELS = Object.keys(SERVICES);

/** The aspect ratios Stability accepts; an OpenAI `size` is reduced to one of them or refused. */
const ASPECT_RATIOS = new Set(['16:9', '1:1', '21:9', '2:3', '3:2', '4:5', '5:4', '9:16', '9:21']);
const OUTPUT_FORMATS = new Set(['png', 'jpeg', 'webp']);
/** Stability's own fields, passed on as they are. */
const OWN_FIELDS = ['negative_prompt', 'seed', 'style_preset', 'cfg_scale', 'aspect_ratio'];
/** OpenAI fields Stability has nothing for (DALL·E / gpt-image styles and quality). */
const UNSUPPORTED = ['quality', 'style', 'background', 'moderation', 'output_compression', 'partial_images'];

export interface StabilityImageRequest {
  path: string;
  form: FormData;
}

export function toStabilityImageRequest(fields: Record<string, unknown>): StabilityImageRequest {
  const name = fields.model === undefined ? DEFAULT_STABILITY_MODEL : fields.model;
  const service = typeof name === 'string' ? SERVICES[name] : undefined;
  if (!service) throw badRequest('invalid_request', `\`model\` must be one of ${STABILITY_MODELS.join(', ')}`, 'model');
  if (fields.n !== undefined && fields.n !== 1) throw badRequest('unsupported_parameter', 'Stability AI makes one image per request: `n` must be 1', 'n');
  if (fields.response_format !== undefined && fields.response_format !== 'b64_json') {
    throw badRequest('unsupported_parameter', 'Stability AI returns the image itself, not a link: use `response_format: "b64_json"`', 'response_format');
  }
  const unsupported = UNSUPPORTED.find((field) => fields[field] !== undefined && fields[field] !== null && fields[field] !== 'auto');
  if (unsupported) throw badRequest('unsupported_parameter', `Stability AI does not support \`${unsupported}\``, unsupported);
  const form = new FormData();
  form.set('prompt', String(fields.prompt));
  if (service.model) form.set('model', service.model);
  const aspect = aspectRatioOf(fields.size);
  if (aspect) form.set('aspect_ratio', aspect);
  const format = fields.output_format ?? 'png';
  if (typeof format !== 'string' || !OUTPUT_FORMATS.has(format)) throw badRequest('invalid_request', '`output_format` must be png, jpeg or webp', 'output_format');
  form.set('output_format', format);
  for (const field of OWN_FIELDS) if (fields[field] !== undefined && fields[field] !== null) form.set(field, String(fields[field]));
  return { path: `stable-image/generate/${service.service}`, form };
}

/** `1024x1024` → `1:1`, `1792x1024` → none of Stability's: refused. `auto` or absent: Stability's default (1:1). */
function aspectRatioOf(size: unknown): string | undefined {
  if (size === undefined || size === null || size === 'auto') return undefined;
  const match = typeof size === 'string' ? /^(\d+)x(\d+)$/.exec(size) : null;
  if (match) {
    const [width, height] = [Number(match[1]), Number(match[2])];
    const divisor = gcd(width, height);
    const ratio = `${width / divisor}:${height / divisor}`;
    if (ASPECT_RATIOS.has(ratio)) return ratio;
  }
  throw badRequest('unsupported_parameter', `Stability AI generates the aspect ratios ${[...ASPECT_RATIOS].join(', ')}: \`size\` must be WxH in one of them (e.g. 1024x1024), or send \`aspect_ratio\``, 'size');
}

function gcd(a: number, b: number): number {
  return b === 0 ? a || 1 : gcd(b, a % b);
}

/**
 * `{"image": "<base64>", "finish_reason": "SUCCESS" | "CONTENT_FILTERED", "seed"}` → OpenAI's
 * `{created, data: [{b64_json}]}`. A filtered image is refused as OpenAI refuses one (400
 * `content_policy_violation`) rather than handed over blurred.
 */
export function toOpenAIImages(answer: unknown, fields: Record<string, unknown>): Record<string, unknown> {
  const body = isRecord(answer) ? answer : {};
  if (body.finish_reason === 'CONTENT_FILTERED') {
    throw new GatewayError(400, 'content_policy_violation', 'Stability AI filtered the generated image (finish_reason CONTENT_FILTERED)', { type: 'invalid_request_error' });
  }
  const image = stringField(body, 'image');
  if (!image) throw new GatewayError(502, 'upstream_invalid_response', 'Stability AI answered without an image', { type: 'upstream_error', upstream: true });
  const seed = numberField(body, 'seed');
  return {
    created: Math.floor(Date.now() / 1000),
    data: [{ b64_json: image, ...(seed !== undefined ? { seed } : {}) }],
    output_format: typeof fields.output_format === 'string' ? fields.output_format : 'png',
  };
}
